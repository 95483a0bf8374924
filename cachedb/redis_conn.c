/*
 * cachedb/redis_conn.c - an asynchronous Redis connection on a worker's
 * event loop (hiredis' async API over comm_watch and comm_timer).
 *
 * See redis_conn.h for the design. hiredis owns the redisAsyncContext:
 * it frees it itself after a connect failure or a lost connection (and
 * calls on_connect or on_disconnect first), so c->ac is cleared in those
 * callbacks and never touched again; petrel frees it only from its own
 * timer callbacks or at delete (redis_conn_drop), never from inside a
 * hiredis callback.
 */
#include "config.h"
#ifdef HAVE_HIREDIS
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <hiredis/hiredis.h>
#include <hiredis/async.h>
#include "cachedb/redis_conn.h"
#include "util/netevent/netevent.h"
#include "util/log.h"

/** first wait before a reconnect */
#define REDIS_CONN_MIN_BACKOFF_MS 100

struct redis_conn {
	/** the event loop */
	struct comm_base *base;
	/** the connection, NULL while down */
	redisAsyncContext *ac;
	/** the watch on its socket, NULL while down */
	struct comm_watch *watch;
	/** the events hiredis wants (COMM_WATCH_*) */
	int mask;
	/** 1 once connected */
	int up;
	/** 1 while petrel itself frees ac */
	int freeing;
	/** 1 once the loss is logged (until it is back) */
	int down_logged;
	/** commands waiting for replies */
	int pending;
	/** commands given up on in a row */
	int timeouts;
	/** next back-off, ms */
	int backoff_ms;
	/** reconnect timer */
	struct comm_timer *retry_timer;
	/** connect timeout timer */
	struct comm_timer *connect_timer;
	/** settings (strings owned) */
	struct redis_server_cfg cfg;
	/** "server 127.0.0.1@6379" for logs */
	char desc[160];
};

/** one command waiting for its reply */
struct redis_cmd {
	/** the connection */
	struct redis_conn *c;
	/** the caller's callback, or NULL */
	redis_conn_cb_type cb;
	/** its argument */
	void *arg;
};

static void conn_start(struct redis_conn *c);

/** connections of this process now down (each counted once): the loss
 * is logged when the first goes down and the return when the last is
 * back, so a petrel with many workers says it once */
static int redis_conns_down;

const char *
redis_conn_name(const struct redis_conn *c)
{
	return c->desc;
}

/** the connection is not usable: log it once */
static void
note_down(struct redis_conn *c, const char *why)
{
	if(c->down_logged)
		return;
	c->down_logged = 1;
	if(__atomic_fetch_add(&redis_conns_down, 1, __ATOMIC_RELAXED) != 0)
		return;
	log_warnx("cachedb: redis %s is down (%s); queries go on without it "
		"and the connection is retried in the background", c->desc,
		why ? why : "unknown error");
}

/** try again after the back-off */
static void
schedule_retry(struct redis_conn *c)
{
	comm_timer_disable(c->connect_timer);
	comm_timer_set(c->retry_timer, c->backoff_ms);
	c->backoff_ms *= 2;
	if(c->backoff_ms > REDIS_CONN_MAX_BACKOFF_MS)
		c->backoff_ms = REDIS_CONN_MAX_BACKOFF_MS;
}

/** free the connection from petrel's side (not from hiredis callbacks) */
static void
conn_drop(struct redis_conn *c)
{
	redisAsyncContext *ac = c->ac;
	if(!ac)
		return;
	c->ac = NULL;
	c->up = 0;
	c->freeing = 1;
	redisAsyncFree(ac);
	c->freeing = 0;
}

/* ---- the event adapter: hiredis hooks over a comm_watch ---- */

/** apply the wanted events */
static void
ev_apply(struct redis_conn *c)
{
	if(c->watch)
		(void)comm_watch_set_events(c->watch, c->mask);
}

static void ev_add_read(void *p)
{ struct redis_conn *c = p; c->mask |= COMM_WATCH_READ; ev_apply(c); }
static void ev_del_read(void *p)
{ struct redis_conn *c = p; c->mask &= ~COMM_WATCH_READ; ev_apply(c); }
static void ev_add_write(void *p)
{ struct redis_conn *c = p; c->mask |= COMM_WATCH_WRITE; ev_apply(c); }
static void ev_del_write(void *p)
{ struct redis_conn *c = p; c->mask &= ~COMM_WATCH_WRITE; ev_apply(c); }

/** hiredis is done with the socket */
static void
ev_cleanup(void *p)
{
	struct redis_conn *c = p;
	c->mask = 0;
	comm_watch_delete(c->watch);
	c->watch = NULL;
}

/** the socket is ready */
static void
watch_cb(int fd, int events, void *arg)
{
	struct redis_conn *c = arg;
	(void)fd;
	if((events & COMM_WATCH_READ) && c->ac)
		redisAsyncHandleRead(c->ac);
	/* the read may have lost the connection (c->ac is then NULL) */
	if((events & COMM_WATCH_WRITE) && c->ac)
		redisAsyncHandleWrite(c->ac);
}

/* ---- connection life ---- */

static void
on_connect(const redisAsyncContext *ac, int status)
{
	struct redis_conn *c = ac->data;
	if(status != REDIS_OK) {
		/* hiredis frees ac after this */
		c->ac = NULL;
		c->up = 0;
		note_down(c, ac->errstr[0] ? ac->errstr : "connect failed");
		schedule_retry(c);
		return;
	}
	c->up = 1;
	c->timeouts = 0;
	c->backoff_ms = REDIS_CONN_MIN_BACKOFF_MS;
	comm_timer_disable(c->connect_timer);
	if(c->down_logged) {
		c->down_logged = 0;
		if(__atomic_sub_fetch(&redis_conns_down, 1,
			__ATOMIC_RELAXED) == 0)
			log_info("cachedb: redis %s is back", c->desc);
	} else	verbose(VERB_OPS, "cachedb: connected to redis %s",
		c->desc);
}

static void
on_disconnect(const redisAsyncContext *ac, int status)
{
	struct redis_conn *c = ac->data;
	c->ac = NULL;
	c->up = 0;
	if(c->freeing)
		return;
	note_down(c, status == REDIS_OK ? "connection closed" :
		(ac->errstr[0] ? ac->errstr : "connection lost"));
	schedule_retry(c);
}

/** AUTH and SELECT replies: an error reply is worth a log line */
static void
setup_reply_cb(redisAsyncContext *ac, void *r, void *privdata)
{
	redisReply *reply = r;
	struct redis_conn *c = ac->data;
	(void)privdata;
	if(reply && reply->type == REDIS_REPLY_ERROR)
		log_err("cachedb: redis %s refused %s: %s", c->desc,
			(const char *)privdata, reply->str ? reply->str : "");
}

/** connect timeout */
static void
connect_timeout_cb(void *arg)
{
	struct redis_conn *c = arg;
	if(c->up || !c->ac)
		return;
	conn_drop(c);
	note_down(c, "connect timed out");
	schedule_retry(c);
}

/** back-off passed */
static void
retry_cb(void *arg)
{
	conn_start(arg);
}

/** start connecting */
static void
conn_start(struct redis_conn *c)
{
	redisAsyncContext *ac;
	if(c->ac)
		return;
	if(c->cfg.path && c->cfg.path[0])
		ac = redisAsyncConnectUnix(c->cfg.path);
	else	ac = redisAsyncConnect(c->cfg.host, c->cfg.port);
	if(!ac) {
		note_down(c, "out of memory");
		schedule_retry(c);
		return;
	}
	if(ac->err) {
		note_down(c, ac->errstr);
		redisAsyncFree(ac);
		schedule_retry(c);
		return;
	}
	ac->data = c;
	ac->ev.data = c;
	ac->ev.addRead = ev_add_read;
	ac->ev.delRead = ev_del_read;
	ac->ev.addWrite = ev_add_write;
	ac->ev.delWrite = ev_del_write;
	ac->ev.cleanup = ev_cleanup;
	c->mask = 0;
	c->watch = comm_watch_create_rw(c->base, ac->c.fd, watch_cb, c);
	if(!c->watch) {
		ac->ev.cleanup = NULL;
		redisAsyncFree(ac);
		note_down(c, "cannot watch its socket");
		schedule_retry(c);
		return;
	}
	c->ac = ac;
	/* waits for the socket to be writable: the connect is done */
	redisAsyncSetConnectCallback(ac, on_connect);
	redisAsyncSetDisconnectCallback(ac, on_disconnect);
	/* pipelined ahead of every command */
	if(c->cfg.password && c->cfg.password[0])
		(void)redisAsyncCommand(ac, setup_reply_cb, "AUTH", "AUTH %s",
			c->cfg.password);
	if(c->cfg.db > 0)
		(void)redisAsyncCommand(ac, setup_reply_cb, "SELECT",
			"SELECT %d", c->cfg.db);
	comm_timer_set(c->connect_timer, c->cfg.connect_timeout_ms);
}

/** copy a string setting; @return 0 or -1 */
static int
dup_str(const char **dst, const char *src)
{
	*dst = NULL;
	if(!src)
		return 0;
	*dst = strdup(src);
	return *dst ? 0 : -1;
}

struct redis_conn *
redis_conn_create(struct comm_base *base, const struct redis_server_cfg *cfg)
{
	struct redis_conn *c = calloc(1, sizeof(*c));
	if(!c)
		return NULL;
	c->base = base;
	c->cfg = *cfg;
	c->backoff_ms = REDIS_CONN_MIN_BACKOFF_MS;
	if(c->cfg.connect_timeout_ms <= 0)
		c->cfg.connect_timeout_ms = 1000;
	if(dup_str(&c->cfg.host, cfg->host) != 0 ||
		dup_str(&c->cfg.path, cfg->path) != 0 ||
		dup_str(&c->cfg.password, cfg->password) != 0 ||
		dup_str(&c->cfg.name, cfg->name ? cfg->name : "server") != 0)
		goto fail;
	if(c->cfg.path && c->cfg.path[0])
		snprintf(c->desc, sizeof(c->desc), "%s %s", c->cfg.name,
			c->cfg.path);
	else	snprintf(c->desc, sizeof(c->desc), "%s %s@%d", c->cfg.name,
		c->cfg.host ? c->cfg.host : "", c->cfg.port);
	c->retry_timer = comm_timer_create(base, retry_cb, c);
	c->connect_timer = comm_timer_create(base, connect_timeout_cb, c);
	if(!c->retry_timer || !c->connect_timer)
		goto fail;
	conn_start(c);
	return c;
fail:
	redis_conn_delete(c);
	return NULL;
}

void
redis_conn_delete(struct redis_conn *c)
{
	if(!c)
		return;
	conn_drop(c);
	if(c->down_logged)
		(void)__atomic_sub_fetch(&redis_conns_down, 1,
			__ATOMIC_RELAXED);
	comm_timer_delete(c->retry_timer);
	comm_timer_delete(c->connect_timer);
	free((char *)c->cfg.host);
	free((char *)c->cfg.path);
	free((char *)c->cfg.password);
	free((char *)c->cfg.name);
	free(c);
}

int
redis_conn_ready(const struct redis_conn *c)
{
	/* up, or making its first connection since it was last up (the
	 * worker's start): hiredis keeps the command until the connection
	 * is made, and the caller's timeout bounds the wait. Never while a
	 * lost connection is retried: a dead Redis must cost nothing. */
	return c && c->ac && (c->up || !c->down_logged) &&
		c->pending < REDIS_CONN_MAX_PENDING;
}

/** hiredis' callback: hand the reply on */
static void
cmd_cb(redisAsyncContext *ac, void *reply, void *privdata)
{
	struct redis_cmd *cmd = privdata;
	struct redis_conn *c = cmd->c;
	(void)ac;
	c->pending--;
	if(reply)
		c->timeouts = 0;
	if(cmd->cb)
		cmd->cb(c, reply, cmd->arg);
	free(cmd);
}

int
redis_conn_command(struct redis_conn *c, int argc, const char **argv,
	const size_t *argvlen, redis_conn_cb_type cb, void *arg)
{
	struct redis_cmd *cmd;
	if(!redis_conn_ready(c))
		return -1;
	cmd = malloc(sizeof(*cmd));
	if(!cmd)
		return -1;
	cmd->c = c;
	cmd->cb = cb;
	cmd->arg = arg;
	if(redisAsyncCommandArgv(c->ac, cmd_cb, cmd, argc, argv,
		argvlen) != REDIS_OK) {
		free(cmd);
		return -1;
	}
	c->pending++;
	return 0;
}

void
redis_conn_timeout(struct redis_conn *c)
{
	char why[64];
	if(++c->timeouts < REDIS_CONN_MAX_TIMEOUTS || !c->ac)
		return;
	snprintf(why, sizeof(why), "no reply to %d commands in a row",
		c->timeouts);
	c->timeouts = 0;
	conn_drop(c);
	note_down(c, why);
	schedule_retry(c);
}
#endif /* HAVE_HIREDIS */
