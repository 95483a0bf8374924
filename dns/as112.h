/*
 * dns/as112.h - the reverse zones of private and special-use addresses
 * (RFC 1918, RFC 6598, RFC 3927, RFC 5737, RFC 6303 and friends: the
 * zones AS112 serves, and the like).
 *
 * One list for the two users that must agree on it: the default local
 * zones (front/localzone.c answers them locally unless
 * unblock-lan-zones) and the validator (validator/validator.c marks them
 * insecure with insecure-lan-zones), as Unbound does with its list.
 */
#ifndef DNS_AS112_H
#define DNS_AS112_H

/** the zones, in presentation format, NULL-terminated */
extern const char *const dns_as112_zones[];

#endif /* DNS_AS112_H */
