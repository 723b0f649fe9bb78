# Varnish 7 in front of Tabula (docs/scaling-out.md#http-caches-and-purging).
#
# Caches the GETs Tabula marks `Cache-Control: public` (answers to read keys), per URL,
# Authorization and Origin, for their `s-maxage` (CDN_MAX_AGE); passes everything else. The
# `cdn-purge` worker (CDN_PURGE_URL=http://<this varnish>/, CDN_PURGE_KIND=varnish) sends
# `PURGE` with `xkey-purge: <keys>` after each commit: objects tagged with a project key (`p:`)
# are removed at once, the others served for half a second more while fetched again (see
# vcl_recv). Needs varnish-modules (the xkey vmod).
vcl 4.1;

import directors;
import xkey;

# --- backends: one per API process; edit to match yours ---
backend tabula1 {
  .host = "127.0.0.1";
  .port = "3000";
}

sub vcl_init {
  new api = directors.round_robin();
  api.add_backend(tabula1);
}
# --- end of backends ---

# Who may purge: the hosts of the workers.
acl purgers {
  "127.0.0.1";
  "::1";
}

sub vcl_recv {
  set req.backend_hint = api.backend();
  if (req.method == "PURGE") {
    if (client.ip !~ purgers) {
      return (synth(403, "Forbidden"));
    }
    if (!req.http.xkey-purge) {
      return (synth(400, "xkey-purge is missing"));
    }
    # Project-wide keys (`p:`: API keys, schema, the project itself) are purged at once: a
    # deactivated key's answers must never be served again. The others (rows, lists, tables,
    # resources) are purged softly: the object stays for its grace (below), and the first
    # request after the purge gets it while a fresh one is fetched in the background, so a
    # busy list is not fetched by every request that arrives meanwhile.
    set req.http.xkey-hard = regsuball(req.http.xkey-purge, "(^|\s)[^p\s]\S*", "");
    return (synth(200, "Purged " + xkey.purge(req.http.xkey-hard) + ", softly " + xkey.softpurge(req.http.xkey-purge)));
  }
  # Writes, streams and the rest go straight through.
  if ((req.method != "GET" && req.method != "HEAD") || req.url !~ "^/v1/" || req.url ~ "/events/" || req.http.Accept ~ "text/event-stream") {
    return (pass);
  }
  # The built-in VCL passes requests with Authorization; Tabula's public answers are cached per
  # credential instead (vcl_hash), so one key's answer is never another's.
  return (hash);
}

sub vcl_hash {
  hash_data(req.url);
  if (req.http.host) {
    hash_data(req.http.host);
  } else {
    hash_data(server.ip);
  }
  # A key of another project, a revoked or another key, another Origin (keys restricted to
  # allowedHosts): another object, filled by Tabula's own checks.
  hash_data("authorization:" + req.http.Authorization);
  hash_data("origin:" + req.http.Origin);
  return (lookup);
}

sub vcl_backend_response {
  # Only read keys' successful answers are shared: errors, private answers (Cache-Control:
  # private) and anything without surrogate keys are not stored (hit-for-miss for one second).
  if (beresp.status != 200 || beresp.http.Cache-Control !~ "(^|[ ,])public([ ,]|$)" || !beresp.http.Surrogate-Key) {
    set beresp.uncacheable = true;
    set beresp.ttl = 1s;
    return (deliver);
  }
  # The TTL is the answer's s-maxage (Varnish prefers it to max-age). Half a second of grace: a
  # softly purged or expired answer is served at most that long after, while it is fetched again.
  set beresp.http.xkey = beresp.http.Surrogate-Key;
  set beresp.grace = 500ms;
  return (deliver);
}

sub vcl_deliver {
  if (obj.hits > 0) {
    set resp.http.X-Cache = "HIT";
  } else {
    set resp.http.X-Cache = "MISS";
  }
  unset resp.http.xkey;
}
