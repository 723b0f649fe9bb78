/** The part of s3rver (which ships no types) that the tests and the benchmark use. */
declare module 's3rver' {
  import type { AddressInfo } from 'node:net';

  interface S3rverOptions {
    address?: string;
    port?: number;
    silent?: boolean;
    directory?: string;
    resetOnClose?: boolean;
  }

  export default class S3rver {
    constructor(options?: S3rverOptions);
    /** Listens; resolves with the address (port 0 picks a free one). */
    run(): Promise<AddressInfo>;
    close(): Promise<void>;
  }
}
