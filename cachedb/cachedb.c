/*
 * cachedb/cachedb.c - the cachedb module: a second-level cache on Redis.
 *
 * See cachedb.h for what it does and cachedb_record.h for the key, the
 * value and the expiry rules. Ownership of a lookup (struct cachedb_req):
 * the request is shared by the state (until its timer fires or the state
 * is cleared) and by hiredis (until the GET's callback has run); it is
 * freed by whichever lets go last. A state is always resumed from the
 * request's timer (armed at 0 ms when the reply arrives), never from
 * inside a hiredis callback, so the module never re-enters hiredis.
 */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <arpa/inet.h>
#ifdef HAVE_HIREDIS
#include <hiredis/hiredis.h>
#endif
#include "cachedb/cachedb.h"
#include "cachedb/cachedb_record.h"
#include "cachedb/redis_conn.h"
#include "services/module.h"
#include "dns/dns.h"
#include "util/config_file.h"
#include "util/netevent/netevent.h"
#include "util/region.h"
#include "util/log.h"

/** the module's settings (env->modinfo[id]), shared read-only */
struct cachedb_env {
	/** the server */
	struct redis_server_cfg server;
	/** the replica, when have_replica */
	struct redis_server_cfg replica;
	/** 1 when a replica is set */
	int have_replica;
	/** how long a lookup may wait, ms */
	int lookup_ms;
	/** the same on the replica */
	int replica_lookup_ms;
	/** cachedb-no-store */
	int no_store;
	/** redis-expire-records */
	int expire_records;
	/** serve-expired settings */
	int serve_expired, serve_expired_ttl, serve_expired_reply_ttl;
	/** cachedb-check-when-serve-expired with serve-expired and no
	 * serve-expired-client-timeout: the expired answer of the local
	 * cache is given as soon as Redis has nothing fresh */
	int stale_after_lookup;
	/** secret-seed */
	char *seed;
	/** the strings of server and replica (owned) */
	char *strs[6];
};

/** per worker (env->worker_data[id]) */
struct cachedb_worker {
	/** connection to the server, or NULL */
	struct redis_conn *server;
	/** connection to the replica, or NULL */
	struct redis_conn *replica;
	/** encode buffer for writes */
	uint8_t buf[65535 + CACHEDB_TRAILER_LEN];
};

/** one lookup in flight */
struct cachedb_req {
	/** the state, or NULL once it let go */
	struct module_qstate *qs;
	/** the module's index */
	int id;
	/** 1 when hiredis has called back */
	int hiredis_done;
	/** the connection it went on */
	struct redis_conn *conn;
	/** the bound on the wait; armed at 0 ms when the reply is in */
	struct comm_timer *timer;
};

/** per state (qs->minfo[id], in the state's region) */
struct cachedb_qstate {
	/** the lookup in flight, or NULL */
	struct cachedb_req *req;
	/** 1 once the lookup is done (or skipped) */
	int looked;
	/** 1 when the answer came from Redis (not written back) */
	int from_redis;
	/** the value read, in the region, or NULL */
	uint8_t *val;
	/** its length */
	size_t vlen;
	/** an expired answer serve-expired allows, kept for a failure */
	struct mesh_answer *stale;
};

/** free a request */
static void
req_free(struct cachedb_req *req)
{
	comm_timer_delete(req->timer);
	free(req);
}

#ifdef HAVE_HIREDIS
/** keep a copy of a string setting; @return the copy or NULL */
static char *
keep_str(struct cachedb_env *ce, int i, const char *s)
{
	ce->strs[i] = strdup(s ? s : "");
	return ce->strs[i];
}

/** @return 1 when s is an IPv4 or IPv6 address */
static int
is_ip(const char *s)
{
	unsigned char b[16];
	return inet_pton(AF_INET, s, b) == 1 || inet_pton(AF_INET6, s, b) == 1;
}
#endif /* HAVE_HIREDIS */

static void cachedb_deinit(struct module_env *env, int id);

static int
cachedb_init(struct module_env *env, int id, char *err, size_t errlen)
{
#ifndef HAVE_HIREDIS
	(void)env; (void)id;
	snprintf(err, errlen, "module-config: cachedb needs its backend "
		"redis, and this petrel was built without hiredis (configure "
		"--with-libhiredis; apt-get install libhiredis-dev)");
	return -1;
#else
	struct config_file *cfg = env->cfg;
	struct cachedb_env *ce = calloc(1, sizeof(*ce));
	if(!ce) {
		snprintf(err, errlen, "cachedb: out of memory");
		return -1;
	}
	env->modinfo[id] = ce;
	if(!cfg) {
		snprintf(err, errlen, "cachedb: no config");
		goto fail;
	}
	if(!keep_str(ce, 0, cfg->redis_server_host) ||
		!keep_str(ce, 1, cfg->redis_server_path) ||
		!keep_str(ce, 2, cfg->redis_server_password) ||
		!keep_str(ce, 3, cfg->redis_replica_server_host) ||
		!keep_str(ce, 4, cfg->redis_replica_server_path) ||
		!keep_str(ce, 5, cfg->redis_replica_server_password) ||
		!(ce->seed = strdup(cfg->secret_seed ? cfg->secret_seed : ""))) {
		snprintf(err, errlen, "cachedb: out of memory");
		goto fail;
	}
	if(!ce->strs[1][0] && !is_ip(ce->strs[0])) {
		snprintf(err, errlen, "cachedb: redis-server-host: expected an "
			"IP address, got '%s' (petrel does not look names up "
			"for its own connections)", ce->strs[0]);
		goto fail;
	}
	ce->have_replica = ce->strs[3][0] || ce->strs[4][0];
	if(ce->have_replica && !ce->strs[4][0] && !is_ip(ce->strs[3])) {
		snprintf(err, errlen, "cachedb: redis-replica-server-host: "
			"expected an IP address, got '%s'", ce->strs[3]);
		goto fail;
	}
	ce->server.host = ce->strs[0];
	ce->server.port = cfg->redis_server_port;
	ce->server.path = ce->strs[1];
	ce->server.password = ce->strs[2];
	ce->server.db = cfg->redis_logical_db;
	ce->server.connect_timeout_ms = cfg->redis_connect_timeout > 0 ?
		cfg->redis_connect_timeout : cfg->redis_timeout;
	ce->server.name = "server";
	ce->lookup_ms = cfg->redis_command_timeout > 0 ?
		cfg->redis_command_timeout : cfg->redis_timeout;
	ce->replica.host = ce->strs[3];
	ce->replica.port = cfg->redis_replica_server_port;
	ce->replica.path = ce->strs[4];
	ce->replica.password = ce->strs[5];
	ce->replica.db = cfg->redis_replica_logical_db;
	ce->replica.connect_timeout_ms = cfg->redis_replica_connect_timeout > 0
		? cfg->redis_replica_connect_timeout :
		cfg->redis_replica_timeout;
	ce->replica.name = "replica";
	ce->replica_lookup_ms = cfg->redis_replica_command_timeout > 0 ?
		cfg->redis_replica_command_timeout :
		cfg->redis_replica_timeout;
	ce->no_store = cfg->cachedb_no_store;
	ce->expire_records = cfg->redis_expire_records;
	ce->serve_expired = cfg->serve_expired;
	ce->serve_expired_ttl = cfg->serve_expired_ttl;
	ce->serve_expired_reply_ttl = cfg->serve_expired_reply_ttl;
	ce->stale_after_lookup = cfg->serve_expired &&
		cfg->cachedb_check_when_serve_expired &&
		cfg->serve_expired_client_timeout == 0;
	return 0;
fail:
	cachedb_deinit(env, id);
	return -1;
#endif
}

static void
cachedb_deinit(struct module_env *env, int id)
{
	struct cachedb_env *ce = env->modinfo[id];
	int i;
	if(!ce)
		return;
	for(i = 0; i < 6; i++)
		free(ce->strs[i]);
	free(ce->seed);
	free(ce);
	env->modinfo[id] = NULL;
}

#ifdef HAVE_HIREDIS
/*
 * The Redis side: connections per worker, the GET and the SET. Without
 * hiredis none of it is built (redis_conn.c is empty then), and since
 * cachedb_init refuses to start the module, the stubs after this block
 * are never reached with a state; they keep the module table whole.
 */

/** the worker's connections, made at first use; NULL without a loop */
static struct cachedb_worker *
get_worker(struct module_env *env, int id)
{
	struct cachedb_env *ce = env->modinfo[id];
	struct cachedb_worker *w = env->worker_data[id];
	if(w || !env->base || !ce)
		return w;
	w = calloc(1, sizeof(*w));
	if(!w)
		return NULL;
	w->server = redis_conn_create(env->base, &ce->server);
	if(ce->have_replica)
		w->replica = redis_conn_create(env->base, &ce->replica);
	env->worker_data[id] = w;
	return w;
}

static void
cachedb_worker_deinit(struct module_env *env, int id)
{
	struct cachedb_worker *w = env->worker_data[id];
	if(!w)
		return;
	redis_conn_delete(w->replica);
	redis_conn_delete(w->server);
	free(w);
	env->worker_data[id] = NULL;
}

/** the lookup's wait is over (reply in, or timed out): resume the state */
static void
req_timer_cb(void *arg)
{
	struct cachedb_req *req = arg;
	struct module_qstate *qs = req->qs;
	struct redis_conn *conn = req->conn;
	int got = req->hiredis_done;
	if(!qs)
		return;
	((struct cachedb_qstate *)qs->minfo[req->id])->req = NULL;
	req->qs = NULL;
	if(got)
		req_free(req);
	/* else hiredis still holds it and frees it in get_cb */
	if(!got)
		redis_conn_timeout(conn);
	qs->env->resume(qs, got ? MODULE_EVENT_REPLY : MODULE_EVENT_NOREPLY);
}

/** the GET's reply (or NULL: the connection went away) */
static void
get_cb(struct redis_conn *c, void *r, void *arg)
{
	struct cachedb_req *req = arg;
	redisReply *reply = r;
	struct cachedb_qstate *cq;
	(void)c;
	req->hiredis_done = 1;
	if(!req->qs) {
		req_free(req);
		return;
	}
	cq = req->qs->minfo[req->id];
	if(reply && reply->type == REDIS_REPLY_STRING && reply->len > 0) {
		cq->val = region_memdup(req->qs->region, reply->str,
			(size_t)reply->len);
		cq->vlen = cq->val ? (size_t)reply->len : 0;
	} else if(reply && reply->type == REDIS_REPLY_ERROR)
		verbose(VERB_DETAIL, "cachedb: redis error reply: %s",
			reply->str ? reply->str : "");
	comm_timer_set(req->timer, 0);
}

/**
 * Start the lookup of a state.
 * @return 0 when it waits for Redis, -1 when it goes on without.
 */
static int
start_lookup(struct module_qstate *qs, int id, struct cachedb_qstate *cq)
{
	struct cachedb_env *ce = qs->env->modinfo[id];
	struct cachedb_worker *w;
	struct cachedb_req *req;
	struct redis_conn *conn;
	char key[CACHEDB_KEY_LEN + 1];
	const char *argv[2];
	size_t argvlen[2];
	int ms;
	if(qs->prefetch || !(w = get_worker(qs->env, id)))
		return -1;
	if(w->replica && redis_conn_ready(w->replica)) {
		conn = w->replica;
		ms = ce->replica_lookup_ms;
	} else if(redis_conn_ready(w->server)) {
		conn = w->server;
		ms = ce->lookup_ms;
	} else	return -1;
	if(cachedb_key(qs->qname, qs->qtype, qs->qclass, ce->seed, key) != 0)
		return -1;
	req = calloc(1, sizeof(*req));
	if(!req)
		return -1;
	req->qs = qs;
	req->id = id;
	req->conn = conn;
	req->timer = comm_timer_create(qs->env->base, req_timer_cb, req);
	if(!req->timer) {
		free(req);
		return -1;
	}
	argv[0] = "GET"; argvlen[0] = 3;
	argv[1] = key; argvlen[1] = CACHEDB_KEY_LEN;
	if(redis_conn_command(conn, 2, argv, argvlen, get_cb, req) != 0) {
		req_free(req);
		return -1;
	}
	comm_timer_set(req->timer, ms);
	cq->req = req;
	return 0;
}

/** write an answer the iterator found */
static void
store_answer(struct module_qstate *qs, int id)
{
	struct cachedb_env *ce = qs->env->modinfo[id];
	struct cachedb_worker *w = get_worker(qs->env, id);
	char key[CACHEDB_KEY_LEN + 1], ex[24];
	const char *argv[5];
	size_t argvlen[5], vlen = 0;
	time_t now = qs->env->now->tv_sec, expiry = 0;
	int argc = 3;
	if(!w || ce->no_store || qs->no_cache_store ||
		!redis_conn_ready(w->server))
		return; /* (no_cache_store: an answer only for a subnet) */
	if(cachedb_encode(qs->qname, qs->qtype, qs->qclass, qs->return_msg,
		now, w->buf, sizeof(w->buf), &vlen, &expiry) != 0)
		return;
	if(cachedb_key(qs->qname, qs->qtype, qs->qclass, ce->seed, key) != 0)
		return;
	argv[0] = "SET"; argvlen[0] = 3;
	argv[1] = key; argvlen[1] = CACHEDB_KEY_LEN;
	argv[2] = (const char *)w->buf; argvlen[2] = vlen;
	if(ce->expire_records) {
		long long t = cachedb_redis_ttl(expiry, now, ce->serve_expired,
			ce->serve_expired_ttl);
		if(t > 0) {
			snprintf(ex, sizeof(ex), "%lld", t);
			argv[3] = "EX"; argvlen[3] = 2;
			argv[4] = ex; argvlen[4] = strlen(ex);
			argc = 5;
		}
	}
	(void)redis_conn_command(w->server, argc, argv, argvlen, NULL, NULL);
}
#else /* !HAVE_HIREDIS */

static void
cachedb_worker_deinit(struct module_env *env, int id)
{
	(void)env; (void)id;
}

static int
start_lookup(struct module_qstate *qs, int id, struct cachedb_qstate *cq)
{
	(void)qs; (void)id; (void)cq;
	return -1;
}

static void
store_answer(struct module_qstate *qs, int id)
{
	(void)qs; (void)id;
}
#endif /* HAVE_HIREDIS */

/** look at the value read; @return 1 when it answers the state */
static int
use_value(struct module_qstate *qs, int id, struct cachedb_qstate *cq)
{
	struct cachedb_env *ce = qs->env->modinfo[id];
	struct mesh_answer *ans = NULL;
	time_t now = qs->env->now->tv_sec, expiry = 0;
	enum cachedb_decode_result r;
	if(!cq->val)
		return 0;
	r = cachedb_decode(cq->val, cq->vlen, qs->qname, qs->qtype,
		qs->qclass, now, qs->region, &ans, &expiry);
	if(r == CACHEDB_FRESH) {
		verbose(VERB_ALGO, "cachedb: answered from redis");
		qs->return_msg = ans;
		qs->return_rcode = ans->rcode;
		cq->from_redis = 1;
		return 1;
	}
	if(r == CACHEDB_EXPIRED && cachedb_stale_ok(expiry, now,
		ce->serve_expired, ce->serve_expired_ttl))
		cq->stale = ans;
	else if(r == CACHEDB_INVALID)
		verbose(VERB_DETAIL, "cachedb: ignored an invalid value");
	return 0;
}

/**
 * Redis has no fresh answer for the state (no value, expired, invalid,
 * no reply in time, or no lookup at all): with stale_after_lookup, the
 * clients waiting with an expired answer of the local cache get it now
 * (cachedb-check-when-serve-expired), while the state goes on to the
 * iterator to refresh it.
 */
static void
no_fresh_value(struct module_qstate *qs, const struct cachedb_env *ce)
{
	if(ce && ce->stale_after_lookup && qs->env->serve_stale)
		qs->env->serve_stale(qs);
}

static void
cachedb_operate(struct module_qstate *qs, enum module_ev ev, int id,
	struct module_reply *reply)
{
	struct cachedb_env *ce = qs->env->modinfo[id];
	struct cachedb_qstate *cq = qs->minfo[id];
	(void)reply;
	if(!cq) {
		cq = region_alloc_zero(qs->region, sizeof(*cq));
		if(!cq) {
			qs->ede = DNS_EDE_OTHER;
			qs->ext_state[id] = MODULE_ERROR;
			return;
		}
		qs->minfo[id] = cq;
	}
	switch(ev) {
	case MODULE_EVENT_NEW:
	case MODULE_EVENT_PASS:
		if(!cq->looked && !cq->req) {
			cq->looked = 1;
			if(start_lookup(qs, id, cq) == 0) {
				qs->ext_state[id] = MODULE_WAIT_REPLY;
				return;
			}
			no_fresh_value(qs, ce);
		}
		break;
	case MODULE_EVENT_REPLY:
	case MODULE_EVENT_NOREPLY:
	case MODULE_EVENT_ERROR:
		if(cq->req) {
			/* not ours to take: still waiting */
			qs->ext_state[id] = MODULE_WAIT_REPLY;
			return;
		}
		if(ev == MODULE_EVENT_REPLY && use_value(qs, id, cq)) {
			qs->ext_state[id] = MODULE_FINISHED;
			return;
		}
		no_fresh_value(qs, ce);
		break;
	case MODULE_EVENT_MODDONE:
		if(qs->return_msg && (qs->return_rcode == DNS_RCODE_NOERROR ||
			qs->return_rcode == DNS_RCODE_NXDOMAIN)) {
			if(!cq->from_redis && !qs->return_msg->policy)
				store_answer(qs, id);
		} else if(cq->stale) {
			/* the resolution failed: serve-expired's answer */
			cachedb_mark_stale(cq->stale,
				(uint32_t)(ce->serve_expired_reply_ttl > 0 ?
				ce->serve_expired_reply_ttl : 0));
			qs->return_msg = cq->stale;
			qs->return_rcode = cq->stale->rcode;
			qs->ede = -1;
		}
		qs->ext_state[id] = MODULE_FINISHED;
		return;
	default:
		break;
	}
	qs->ext_state[id] = MODULE_WAIT_MODULE;
}

static void
cachedb_inform_super(struct module_qstate *sub, int id,
	struct module_qstate *super)
{
	(void)sub; (void)id; (void)super;
}

static void
cachedb_clear(struct module_qstate *qs, int id)
{
	struct cachedb_qstate *cq = qs->minfo[id];
	struct cachedb_req *req;
	if(!cq || !(req = cq->req))
		return;
	cq->req = NULL;
	req->qs = NULL;
	comm_timer_disable(req->timer);
	if(req->hiredis_done)
		req_free(req);
	/* else get_cb frees it */
}

static size_t
cachedb_get_mem(struct module_env *env, int id)
{
	return env->modinfo[id] ? sizeof(struct cachedb_env) : 0;
}

const struct module_func_block cachedb_module_block = {
	.name = "cachedb",
	.init = cachedb_init,
	.deinit = cachedb_deinit,
	.operate = cachedb_operate,
	.inform_super = cachedb_inform_super,
	.clear = cachedb_clear,
	.get_mem = cachedb_get_mem,
	.worker_deinit = cachedb_worker_deinit,
};
