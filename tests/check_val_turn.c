/*
 * tests/check_val_turn.c - the validator's work per event-loop turn
 * (validator/validator.c, val_yield): a worker's validating states make
 * at most the turn's budget of signature verifications before they are
 * suspended until the next turn (the module timer), and they go on from
 * where they were: the result is the same and no verification is made
 * twice.
 *
 * The validator module runs here on its own, in a fake environment: the
 * test plays the mesh (operate, inform_super, clear), the iterator (the
 * answer handed up with MODULE_EVENT_MODDONE) and the event loop (the
 * module timers, fired one turn at a time). The data is the signed
 * fixture testdata/dnssec/alg13.signed (ECDSA P-256), trusted through its
 * DS record; the answer is an ANY answer at the apex (SOA, NS and MX,
 * one RRSIG each), the key walk the apex DNSKEY set: four verifications.
 * A second fixture (alg8.signed, RSA/SHA-256, trusted likewise) gives an
 * RRset of another signer, for an answer that needs two key walks.
 */
#include "config.h"
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tests/val_testutil.h"
#include "validator/validator.h"
#include "services/module.h"
#include "util/config_file.h"
#include "util/region.h"
#include "dns/dns.h"
#include "dns/name.h"

/** a time inside the fixture's validity window */
#define NOW_STR "20250115000000"
/** the fixture's trust anchor (its DS record) */
#define ANCHOR "alg13.example. IN DS 34728 13 2 " \
	"f43b1ec5145859afca2ef589e8853d0679aae0198061cbe230c8154820042acd"
/** a second zone's (alg8.signed, RSA/SHA-256) */
#define ANCHOR8 "alg8.example. IN DS 52696 8 2 " \
	"8c6bfbb4cf3cfb9cb82e40b2e071caad510177e0e554bbda30087186d9133a13"
/** most timers and sub-queries the fake environment keeps */
#define MAXT 16
/** most query states of one test */
#define MAXQ 4

/** a timer from the fake timer_set */
struct ft {
	/** armed */
	int active;
	/** callback */
	void (*fn)(void *);
	/** its argument */
	void *arg;
};

/** the fake worker */
static struct module_env env;
static struct timeval now;
static struct ft timers[MAXT];
static int num_cancel;
static struct module_qstate subs[MAXQ];
static int num_subs_made;
static struct config_file *cfg;
static struct vt_zone *zone, *zone8;

/** the query states of a test, and their regions */
static struct module_qstate qss[MAXQ];
static struct region *regions[MAXQ + MAXQ];

static void *
t_timer_set(struct module_env *e, int ms, void (*fn)(void *), void *arg)
{
	int i;
	(void)e;
	ck_assert_int_eq(ms, 0);
	for(i = 0; i < MAXT; i++)
		if(!timers[i].active) {
			timers[i].active = 1;
			timers[i].fn = fn;
			timers[i].arg = arg;
			return &timers[i];
		}
	return NULL;
}

static void
t_timer_cancel(struct module_env *e, void *t)
{
	(void)e;
	ck_assert(((struct ft *)t)->active);
	((struct ft *)t)->active = 0;
	num_cancel++;
}

/** env->resume: the mesh runs the state's current module again */
static void
t_resume(struct module_qstate *qs, enum module_ev ev)
{
	val_module_block.operate(qs, ev, qs->curmod, NULL);
}

/** env->attach_sub: a sub-state the test answers by hand */
static struct module_qstate *
t_attach_sub(struct module_qstate *super, const uint8_t *qname,
	uint16_t qtype, uint16_t qclass, int flags)
{
	struct module_qstate *sub;
	(void)flags;
	ck_assert_int_lt(num_subs_made, MAXQ);
	sub = &subs[num_subs_made++];
	memset(sub, 0, sizeof(*sub));
	sub->qname = qname; /* (the super's copy, valid while it waits) */
	sub->qname_len = dname_len(qname);
	sub->qtype = qtype;
	sub->qclass = qclass;
	sub->env = &env;
	sub->depth = super->depth + 1;
	sub->region = region_create(4096);
	ck_assert_ptr_nonnull(sub->region);
	regions[MAXQ + (sub - subs)] = sub->region;
	super->num_subs++;
	return sub;
}

/** set the environment up: the validator with the fixture's anchor */
static void
setup(void)
{
	static const char text[] = "server:\n\ttrust-anchor: \"" ANCHOR "\"\n"
		"\ttrust-anchor: \"" ANCHOR8 "\"\n"
		"\ttrust-anchor-signaling: no\n\tval-bogus-ttl: 0\n";
	char err[256];
	memset(&env, 0, sizeof(env));
	memset(timers, 0, sizeof(timers));
	memset(subs, 0, sizeof(subs));
	memset(qss, 0, sizeof(qss));
	memset(regions, 0, sizeof(regions));
	num_cancel = 0;
	num_subs_made = 0;
	now.tv_sec = (time_t)vt_time(NOW_STR);
	now.tv_usec = 0;
	cfg = config_create();
	ck_assert_ptr_nonnull(cfg);
	ck_assert_int_eq(config_read_mem(cfg, "check_val_turn", text,
		sizeof(text) - 1, err, sizeof(err)), 0);
	env.cfg = cfg;
	env.now = &now;
	env.timer_set = t_timer_set;
	env.timer_cancel = t_timer_cancel;
	env.resume = t_resume;
	env.attach_sub = t_attach_sub;
	ck_assert_msg(val_module_block.init(&env, 0, err, sizeof(err)) == 0,
		"init: %s", err);
	zone = vt_zone_load("alg13.signed");
	ck_assert_ptr_nonnull(zone);
	zone8 = vt_zone_load("alg8.signed");
	ck_assert_ptr_nonnull(zone8);
}

static void
teardown(void)
{
	int i;
	for(i = 0; i < MAXQ; i++)
		if(qss[i].env)
			val_module_block.clear(&qss[i], 0);
	val_module_block.worker_deinit(&env, 0);
	for(i = 0; i < MAXT; i++)
		ck_assert_msg(!timers[i].active, "a timer is left armed");
	val_module_block.deinit(&env, 0);
	for(i = 0; i < MAXQ + MAXQ; i++)
		if(regions[i])
			region_destroy(regions[i]);
	vt_zone_free(zone);
	vt_zone_free(zone8);
	config_delete(cfg);
}

/** append a fixture's records at owner of type (and their RRSIGs) */
static void
add_rrset_of(struct vt_zone *z, struct region *r, struct module_rrlist *l,
	const char *owner, uint16_t type)
{
	uint8_t o[256];
	size_t i;
	int n = 0;
	vt_name(owner, o);
	for(i = 0; i < z->n; i++) {
		struct vt_rr *v = &z->rrs[i];
		struct module_rr *rr;
		if(!dname_equal(v->owner, o) || !(v->type == type ||
			(v->type == DNS_TYPE_RRSIG && v->covered == type)))
			continue;
		rr = module_rr_new(r, v->owner, dname_len(v->owner), v->type,
			DNS_CLASS_IN, 3600, v->rdata, v->len);
		ck_assert_ptr_nonnull(rr);
		module_rrlist_append(l, rr);
		n++;
	}
	ck_assert_int_ge(n, 2);
}

/** add_rrset_of the alg13 fixture */
static void
add_rrset(struct region *r, struct module_rrlist *l, const char *owner,
	uint16_t type)
{
	add_rrset_of(zone, r, l, owner, type);
}

/**
 * A client state for ANY at the apex, passed down by the validator, and
 * its answer handed back up (MODULE_EVENT_MODDONE).
 * @param tamper: 1 to spoil the SOA's signature (the first RRset).
 * @param other: 1 to add, after them, the SOA of the other zone
 *	(alg8.example., another signer: a second key walk).
 */
static struct module_qstate *
start_query2(int i, int tamper, int other)
{
	static uint8_t apex[256];
	struct module_qstate *qs = &qss[i];
	struct mesh_answer *a;
	vt_name("alg13.example.", apex);
	if(regions[i]) /* a state of this slot before (cleared) */
		region_destroy(regions[i]);
	memset(qs, 0, sizeof(*qs));
	qs->qname = apex;
	qs->qname_len = dname_len(apex);
	qs->qtype = DNS_TYPE_ANY;
	qs->qclass = DNS_CLASS_IN;
	qs->flags = MESH_FLAG_DO | MESH_FLAG_RD;
	qs->region = region_create(8192);
	ck_assert_ptr_nonnull(qs->region);
	regions[i] = qs->region;
	qs->env = &env;
	qs->ede = -1;
	val_module_block.operate(qs, MODULE_EVENT_NEW, 0, NULL);
	ck_assert_int_eq(qs->ext_state[0], MODULE_WAIT_MODULE);
	a = region_alloc_zero(qs->region, sizeof(*a));
	ck_assert_ptr_nonnull(a);
	a->rcode = DNS_RCODE_NOERROR;
	a->ede = -1;
	add_rrset(qs->region, &a->an, "alg13.example.", DNS_TYPE_SOA);
	add_rrset(qs->region, &a->an, "alg13.example.", DNS_TYPE_NS);
	add_rrset(qs->region, &a->an, "alg13.example.", DNS_TYPE_MX);
	if(other)
		add_rrset_of(zone8, qs->region, &a->an, "alg8.example.",
			DNS_TYPE_SOA);
	if(tamper) {
		struct module_rr *rr;
		for(rr = a->an.first; rr; rr = rr->next)
			if(rr->type == DNS_TYPE_RRSIG) {
				((uint8_t *)rr->rdata)[rr->rdlen - 1] ^= 0x55;
				break;
			}
	}
	qs->return_msg = a;
	qs->return_rcode = DNS_RCODE_NOERROR;
	val_module_block.operate(qs, MODULE_EVENT_MODDONE, 0, NULL);
	return qs;
}

/** start_query2 without the other zone */
static struct module_qstate *
start_query(int i, int tamper)
{
	return start_query2(i, tamper, 0);
}

/** answer the walk's DNSKEY sub-query of qs with the apex DNSKEY set
 * of a fixture */
static void
answer_keys_of(struct module_qstate *qs, struct vt_zone *z,
	const char *apex)
{
	struct module_qstate *sub = &subs[num_subs_made - 1];
	struct mesh_answer *a;
	ck_assert_int_eq(qs->ext_state[0], MODULE_WAIT_SUBQUERY);
	ck_assert_int_eq(sub->qtype, DNS_TYPE_DNSKEY);
	a = region_alloc_zero(sub->region, sizeof(*a));
	ck_assert_ptr_nonnull(a);
	a->ede = -1;
	add_rrset_of(z, sub->region, &a->an, apex, DNS_TYPE_DNSKEY);
	sub->return_msg = a;
	sub->return_rcode = DNS_RCODE_NOERROR;
	val_module_block.inform_super(sub, 0, qs);
	qs->num_subs--;
	val_module_block.operate(qs, MODULE_EVENT_PASS, 0, NULL);
}

/** answer_keys_of the alg13 fixture */
static void
answer_keys(struct module_qstate *qs)
{
	answer_keys_of(qs, zone, "alg13.example.");
}

/** @return the number of armed timers */
static int
armed(void)
{
	int i, n = 0;
	for(i = 0; i < MAXT; i++)
		n += timers[i].active;
	return n;
}

/** a new turn of the loop: fire the timers armed before it.
 * @return how many fired */
static int
turn(void)
{
	struct ft due[MAXT];
	int i, n = 0;
	for(i = 0; i < MAXT; i++) {
		due[i] = timers[i];
		timers[i].active = 0;
	}
	for(i = 0; i < MAXT; i++)
		if(due[i].active) {
			due[i].fn(due[i].arg);
			n++;
		}
	return n;
}

/** verifications made by the worker so far */
static unsigned long
verified(void)
{
	unsigned long s, v;
	val_turn_stats(&env, 0, &s, &v);
	return v;
}

/** suspensions so far */
static unsigned long
suspends(void)
{
	unsigned long s, v;
	val_turn_stats(&env, 0, &s, &v);
	return s;
}

/** the same answer with a turn budget too large to matter and with one
 * of a single verification: suspended at each RRset, it comes out
 * secure after the same four verifications, one per turn */
START_TEST(test_turn_resume_same_result)
{
	struct module_qstate *qs;
	unsigned long before;
	int turns = 0;
	/* a budget that is never spent: no suspension */
	ck_assert_int_eq(val_set_turn_budget(&env, 0, 1000, 100000), 0);
	qs = start_query(0, 0);
	answer_keys(qs);
	ck_assert_int_eq(qs->ext_state[0], MODULE_FINISHED);
	ck_assert_int_eq(qs->return_msg->sec, MODULE_SEC_SECURE);
	ck_assert_uint_eq(verified(), 4);
	ck_assert_uint_eq(suspends(), 0);
	ck_assert_int_eq(armed(), 0);
	val_module_block.clear(qs, 0);
	qs->env = NULL;

	/* one verification per turn; the keys are in the key cache now,
	 * so the same question makes the answer's three */
	ck_assert_int_eq(val_set_turn_budget(&env, 0, 1, 100000), 0);
	now.tv_usec++; /* a new turn */
	qs = start_query(1, 0);
	before = verified();
	ck_assert_uint_eq(before, 5); /* the SOA, before the first yield */
	ck_assert_int_eq(qs->ext_state[0], MODULE_WAIT_REPLY);
	ck_assert_uint_eq(suspends(), 1);
	while(armed()) {
		unsigned long v = verified();
		ck_assert_int_eq(turn(), 1);
		turns++;
		/* each turn verifies one RRset, never more */
		ck_assert_uint_eq(verified() - v, 1);
	}
	ck_assert_int_eq(turns, 2);
	ck_assert_int_eq(qs->ext_state[0], MODULE_FINISHED);
	ck_assert_int_eq(qs->return_msg->sec, MODULE_SEC_SECURE);
	/* three RRsets, three verifications: nothing was verified again
	 * after a resume */
	ck_assert_uint_eq(verified() - before + 1, 3);
	ck_assert_uint_eq(suspends(), 2);
}
END_TEST

/** the walk's DNSKEY answer, too, waits for the next turn when the turn
 * is spent, and a bogus answer keeps its verdict (and EDE) across the
 * suspensions of its pass */
START_TEST(test_turn_walk_and_bogus)
{
	struct module_qstate *qs;
	ck_assert_int_eq(val_set_turn_budget(&env, 0, 1, 100000), 0);
	qs = start_query(0, 1);
	/* the first RRset needs the walk: nothing verified yet */
	ck_assert_uint_eq(verified(), 0);
	answer_keys(qs);
	/* the DNSKEY set (1), then the SOA waits */
	ck_assert_int_eq(qs->ext_state[0], MODULE_WAIT_REPLY);
	ck_assert_uint_eq(verified(), 1);
	while(armed())
		(void)turn();
	ck_assert_int_eq(qs->ext_state[0], MODULE_ERROR);
	ck_assert_int_eq(qs->ede, DNS_EDE_DNSSEC_BOGUS);
	ck_assert_uint_eq(verified(), 4);
	ck_assert_uint_eq(suspends(), 3);

	/* the same without turns: the same verdict, the same work */
	ck_assert_int_eq(val_set_turn_budget(&env, 0, 1000, 100000), 0);
	now.tv_usec++;
	qs = start_query(1, 1);
	ck_assert_int_eq(qs->ext_state[0], MODULE_ERROR);
	ck_assert_int_eq(qs->ede, DNS_EDE_DNSSEC_BOGUS);
	ck_assert_uint_eq(verified(), 4 + 3);
	ck_assert_uint_eq(suspends(), 3);
}
END_TEST

/** states wait in order: a new one goes behind those suspended (even
 * with budget left in its turn), and the timer resumes the first while
 * the turn's budget lasts */
START_TEST(test_turn_queue_order)
{
	struct module_qstate *a, *b, *c;
	int t;
	/* the keys first, in the key cache */
	ck_assert_int_eq(val_set_turn_budget(&env, 0, 1000, 100000), 0);
	a = start_query(0, 0);
	answer_keys(a);
	ck_assert_int_eq(a->ext_state[0], MODULE_FINISHED);
	val_module_block.clear(a, 0);
	a->env = NULL;

	ck_assert_int_eq(val_set_turn_budget(&env, 0, 2, 100000), 0);
	now.tv_usec++;
	a = start_query(0, 0); /* SOA, NS; waits before the MX */
	ck_assert_int_eq(a->ext_state[0], MODULE_WAIT_REPLY);
	b = start_query(1, 0); /* the turn is spent: waits at once */
	ck_assert_int_eq(b->ext_state[0], MODULE_WAIT_REPLY);
	now.tv_usec++; /* a new turn, but a and b wait: c goes last */
	c = start_query(2, 0);
	ck_assert_int_eq(c->ext_state[0], MODULE_WAIT_REPLY);
	ck_assert_uint_eq(verified(), 4 + 2);
	/* turn 1: a's MX (1), b's SOA (2): b waits again, after c */
	ck_assert_int_eq(turn(), 1);
	ck_assert_int_eq(a->ext_state[0], MODULE_FINISHED);
	ck_assert_int_eq(b->ext_state[0], MODULE_WAIT_REPLY);
	ck_assert_int_eq(c->ext_state[0], MODULE_WAIT_REPLY);
	ck_assert_uint_eq(verified(), 4 + 4);
	/* turn 2: c's SOA and NS; turn 3: b's NS and MX (b finishes),
	 * c's MX waits; turn 4: c finishes */
	ck_assert_int_eq(turn(), 1);
	ck_assert_int_eq(c->ext_state[0], MODULE_WAIT_REPLY);
	ck_assert_int_eq(turn(), 1);
	ck_assert_int_eq(b->ext_state[0], MODULE_FINISHED);
	ck_assert_int_eq(c->ext_state[0], MODULE_WAIT_REPLY);
	ck_assert_int_eq(turn(), 1);
	ck_assert_int_eq(c->ext_state[0], MODULE_FINISHED);
	t = armed();
	ck_assert_int_eq(t, 0);
	ck_assert_int_eq(b->return_msg->sec, MODULE_SEC_SECURE);
	ck_assert_int_eq(c->return_msg->sec, MODULE_SEC_SECURE);
	ck_assert_uint_eq(verified(), 4 + 9);
}
END_TEST

/** a state dropped while suspended leaves the queue, and the timer goes
 * with the last one (teardown checks that no timer is left) */
START_TEST(test_turn_clear_suspended)
{
	struct module_qstate *a, *b;
	ck_assert_int_eq(val_set_turn_budget(&env, 0, 1000, 100000), 0);
	a = start_query(0, 0);
	answer_keys(a);
	val_module_block.clear(a, 0);
	a->env = NULL;
	ck_assert_int_eq(val_set_turn_budget(&env, 0, 1, 100000), 0);
	now.tv_usec++;
	a = start_query(0, 0);
	b = start_query(1, 0);
	ck_assert_int_eq(a->ext_state[0], MODULE_WAIT_REPLY);
	ck_assert_int_eq(b->ext_state[0], MODULE_WAIT_REPLY);
	ck_assert_int_eq(armed(), 1);
	/* the first goes: the second is resumed next turn */
	val_module_block.clear(a, 0);
	a->env = NULL;
	ck_assert_int_eq(armed(), 1);
	ck_assert_int_eq(num_cancel, 0);
	ck_assert_int_eq(turn(), 1);
	ck_assert_int_eq(b->ext_state[0], MODULE_WAIT_REPLY);
	/* the last goes: so does the timer */
	val_module_block.clear(b, 0);
	b->env = NULL;
	ck_assert_int_eq(armed(), 0);
	ck_assert_int_eq(num_cancel, 1);
}
END_TEST

/** an RRset verified before a key walk for another signer keeps its
 * verdict: the check goes on after the walk, it does not verify the
 * answer again from the first RRset (nor does it after a suspension
 * between the two) */
START_TEST(test_walk_keeps_verdicts)
{
	struct module_qstate *qs;
	ck_assert_int_eq(val_set_turn_budget(&env, 0, 1000, 100000), 0);
	qs = start_query2(0, 0, 1);
	answer_keys(qs); /* alg13's keys (1); its SOA, NS, MX (3) */
	ck_assert_uint_eq(verified(), 4);
	/* alg8's keys (1), then its SOA (1): the three alg13 RRsets are
	 * not verified again */
	answer_keys_of(qs, zone8, "alg8.example.");
	ck_assert_int_eq(qs->ext_state[0], MODULE_FINISHED);
	ck_assert_int_eq(qs->return_msg->sec, MODULE_SEC_SECURE);
	ck_assert_uint_eq(verified(), 6);
	val_module_block.clear(qs, 0);

	/* with the keys cached and one verification a turn: four
	 * RRsets, four verifications, over four turns */
	ck_assert_int_eq(val_set_turn_budget(&env, 0, 1, 100000), 0);
	now.tv_usec++;
	qs = start_query2(1, 0, 1);
	while(armed())
		(void)turn();
	ck_assert_int_eq(qs->ext_state[0], MODULE_FINISHED);
	ck_assert_int_eq(qs->return_msg->sec, MODULE_SEC_SECURE);
	ck_assert_uint_eq(verified(), 6 + 4);
	ck_assert_uint_eq(suspends(), 3);
}
END_TEST

/* an ANY answer keeps its first VAL_ANY_MAX_SIGNED signed sets (and the
 * unsigned ones before the cut); an RRSIG that stands apart from its set
 * still marks that set signed; a smaller answer is left whole */
static struct module_rr any_rrs[80];
static uint8_t any_sig[80][2];

static void
any_add(struct mesh_answer *a, size_t *n, const uint8_t *owner,
	uint16_t type, uint16_t covered)
{
	struct module_rr *rr = &any_rrs[*n];
	memset(rr, 0, sizeof(*rr));
	rr->owner = owner;
	rr->owner_len = 13;
	rr->type = type;
	rr->rrclass = 1;
	if(type == DNS_TYPE_RRSIG) {
		any_sig[*n][0] = (uint8_t)(covered >> 8);
		any_sig[*n][1] = (uint8_t)covered;
		rr->rdata = any_sig[*n];
		rr->rdlen = 2;
	}
	module_rrlist_append(&a->an, rr);
	(*n)++;
}

START_TEST(test_any_cut)
{
	static const uint8_t owner[] = "\007example\003com";
	struct mesh_answer a;
	struct module_rr *rr;
	size_t n = 0, i, sets = 0;
	uint16_t last = 0;
	memset(&a, 0, sizeof(a));
	/* an unsigned TXT set first, then 30 signed sets of types
	 * 4001-4030, the RRSIG of 4005 placed before its set */
	any_add(&a, &n, owner, DNS_TYPE_TXT, 0);
	for(i = 0; i < 30; i++) {
		uint16_t t = (uint16_t)(4001 + i);
		if(t == 4005) {
			any_add(&a, &n, owner, DNS_TYPE_RRSIG, t);
			any_add(&a, &n, owner, t, 0);
			continue;
		}
		any_add(&a, &n, owner, t, 0);
		any_add(&a, &n, owner, DNS_TYPE_RRSIG, t);
	}
	ck_assert_uint_eq(a.an.count, 61);
	ck_assert_uint_eq(val_any_cut(&a, VAL_ANY_MAX_SIGNED),
		2 * (30 - VAL_ANY_MAX_SIGNED));
	ck_assert_uint_eq(a.an.count, 1 + 2 * VAL_ANY_MAX_SIGNED);
	for(rr = a.an.first; rr; rr = rr->next) {
		uint16_t t = rr->type == DNS_TYPE_RRSIG ?
			(uint16_t)(rr->rdata[0] << 8 | rr->rdata[1]) : rr->type;
		ck_assert_uint_le(t == DNS_TYPE_TXT ? 0 : t - 4000,
			VAL_ANY_MAX_SIGNED);
		if(t != last)
			sets++;
		last = t;
		if(!rr->next)
			ck_assert_ptr_eq(a.an.last, rr);
	}
	ck_assert_uint_eq(sets, 1 + VAL_ANY_MAX_SIGNED);
	/* at the bound: nothing dropped */
	ck_assert_uint_eq(val_any_cut(&a, VAL_ANY_MAX_SIGNED), 0);
	ck_assert_uint_eq(a.an.count, 1 + 2 * VAL_ANY_MAX_SIGNED);
	/* unsigned sets only: the first VAL_ANY_MAX_SETS are looked at,
	 * the rest cut */
	memset(&a, 0, sizeof(a));
	n = 0;
	for(i = 0; i < VAL_ANY_MAX_SETS + 6; i++)
		any_add(&a, &n, owner, (uint16_t)(4001 + i), 0);
	ck_assert_uint_eq(val_any_cut(&a, VAL_ANY_MAX_SIGNED), 6);
	ck_assert_uint_eq(a.an.count, VAL_ANY_MAX_SETS);
	ck_assert_uint_eq(a.an.last->type, 4000 + VAL_ANY_MAX_SETS);
	/* a small answer is left whole */
	memset(&a, 0, sizeof(a));
	n = 0;
	for(i = 0; i < 5; i++) {
		any_add(&a, &n, owner, (uint16_t)(4001 + i), 0);
		any_add(&a, &n, owner, DNS_TYPE_RRSIG, (uint16_t)(4001 + i));
	}
	ck_assert_uint_eq(val_any_cut(&a, VAL_ANY_MAX_SIGNED), 0);
	ck_assert_uint_eq(a.an.count, 10);
}
END_TEST

static Suite *
val_turn_suite(void)
{
	Suite *s = suite_create("val_turn");
	TCase *tc = tcase_create("core");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_turn_resume_same_result);
	tcase_add_test(tc, test_turn_walk_and_bogus);
	tcase_add_test(tc, test_turn_queue_order);
	tcase_add_test(tc, test_turn_clear_suspended);
	tcase_add_test(tc, test_walk_keeps_verdicts);
	tcase_add_test(tc, test_any_cut);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(val_turn_suite());
	int failed;
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
