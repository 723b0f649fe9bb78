/**
 * `node --openssl-legacy-provider test/helpers/s3rver-main.ts <directory>`: s3rver
 * on an ephemeral port of 127.0.0.1, storing in `directory`; prints `{"port":N}` once listening.
 * Node runs it without tsx (it strips types itself, and this file imports only a package), so
 * the server starts without a compile step.
 * Its own process because s3rver encrypts ListObjectsV2 continuation tokens with DES, which
 * OpenSSL 3 offers only through the legacy provider (without it, listing past 1,000 keys fails).
 */
import S3rver from 's3rver';

const directory = process.argv[2];
if (!directory) throw new Error('usage: s3rver-main.ts <directory>');
const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory });
const { port } = await server.run();
process.stdout.write(`${JSON.stringify({ port })}\n`);

const stop = () => void server.close().finally(() => process.exit(0));
process.on('SIGTERM', stop);
// Ends with its parent however that ends: stdin is a pipe from it, closed when it exits.
process.stdin.on('end', stop).resume();
