/*
 * services/authzone_lookup.h - the auth zones' lookups through the mesh.
 *
 * Two kinds of auth zone need an answer from the resolver itself
 * (services/authzone.h says when): a zone held below its trust anchor
 * wants its <apex> DNSKEY set, validated from the anchor, to check its
 * ZONEMD with; a primary: or allow-notify: written as a host name wants
 * its A and AAAA records. This file is the glue between the zones, which
 * know no mesh, and the mesh: it starts each lookup as a background query
 * (RD and DO, validated as a client's query is; MESH_FLAG_NOAUTH: asked
 * of the servers, not of the zone's old copy), and when the mesh finishes
 * one, turns the answer into what the zone takes (the key set and its
 * security, or the addresses).
 *
 * The front end owns the mesh and calls these from the worker's event
 * loop: the starts when the zones' wake-up fired (or, in the replay
 * runner, once after start), auth_lookup_done from the mesh's done
 * callback. None of this is on the cached-answer path.
 */
#ifndef SERVICES_AUTHZONE_LOOKUP_H
#define SERVICES_AUTHZONE_LOOKUP_H

struct auth_zones;
struct mesh;
struct mesh_state;
struct mesh_answer;

/**
 * Start the DNSKEY lookups the held zones want (one per zone;
 * auth_zones_start_lookups) on the mesh.
 * @param az: the auth zones.
 * @param mesh: the worker's mesh.
 */
void auth_lookup_keys_start(struct auth_zones *az, struct mesh *mesh);

/**
 * Start the host name lookups the zones want (A and AAAA of each name;
 * auth_zones_start_host_lookups) on the mesh.
 * @param az: the auth zones.
 * @param mesh: the worker's mesh.
 */
void auth_lookup_hosts_start(struct auth_zones *az, struct mesh *mesh);

/**
 * The mesh finished a query: when it is a lookup one of the zones waits
 * for (a NOAUTH DNSKEY, A or AAAA query of class IN without CD), hand the
 * zone its answer; any other query is left alone.
 * @param az: the auth zones (NULL: nothing to do).
 * @param s: the finished query.
 * @param ans: its answer, or NULL when it failed.
 * @param ede: the Extended DNS Error of a failure (the validator's
 *	DNSSEC errors make a key set bogus), or 0.
 */
void auth_lookup_done(struct auth_zones *az, const struct mesh_state *s,
	const struct mesh_answer *ans, int ede);

#endif /* SERVICES_AUTHZONE_LOOKUP_H */
