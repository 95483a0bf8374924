/*
 * smallapp/petrel-anchor.c - write the built-in root trust anchors.
 *
 *	petrel-anchor [-a file] [-F] [-l] [-v] [-h]
 *
 * For the first start-up of a validating resolver, as unbound-anchor does
 * when it cannot reach the network: when the auto-trust-anchor-file does
 * not exist or holds no usable anchor, write the root anchors built into
 * petrel (KSK-2017 and KSK-2024 as DS records, val_anchor_builtin_root)
 * to it, in the autotrust format the daemon reads and keeps up to date
 * with RFC 5011. A file that already holds a usable anchor is left alone:
 * the daemon's RFC 5011 state in it is worth more than the built-in one.
 * The file is written to a temporary name and renamed, so a reader never
 * sees half of it. No network is used. The file is made readable by all
 * (an anchor is public) and, when root writes it (a service's pre-start
 * step), given to the owner of its folder: the user the daemon runs as,
 * who reads it after dropping privileges and rewrites it (RFC 5011).
 *
 * Exit status (as unbound-anchor's): 0 the file was usable and left as
 * it was; 1 the file was written; 2 an error (message on stderr).
 */
#include "config.h"
#include "validator/val_anchor.h"
#include "validator/val_autotrust.h"
#include "validator/val_pres.h"
#include "dns/dns.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/** default file */
#define ANCHOR_DEFAULT_FILE "/var/lib/petrel/root.key"

/** print usage and exit 2 */
static void
usage(void)
{
	fprintf(stderr, "usage: petrel-anchor [-a file] [-F] [-l] [-v] [-h]\n");
	fprintf(stderr, "	Writes the built-in DNSSEC root trust anchors "
		"(KSK-2017, KSK-2024)\n	to the auto-trust-anchor-file when it "
		"holds no usable anchor.\n");
	fprintf(stderr, "	-a file	the file (default %s)\n",
		ANCHOR_DEFAULT_FILE);
	fprintf(stderr, "	-F	write it even when it holds a usable "
		"anchor\n");
	fprintf(stderr, "	-l	print the built-in anchors and exit\n");
	fprintf(stderr, "	-v	say what is done\n");
	fprintf(stderr, "	-h	this help\n");
	fprintf(stderr, "exit status: 0 file usable, left alone; 1 file "
		"written; 2 error\n");
	exit(2);
}

/**
 * Does the file hold a usable root anchor (it parses, and the root has
 * a trusted DS or DNSKEY)?
 */
static int
file_usable(const char *path, int verbose)
{
	struct val_autr_point **pts = NULL;
	size_t n = 0, i;
	int ok = 0;
	char err[1024];
	if(access(path, F_OK) != 0) {
		if(verbose)
			printf("%s does not exist\n", path);
		return 0;
	}
	if(val_autr_read_file(path, &pts, &n, err, sizeof(err)) != 0) {
		if(verbose)
			printf("%s is not usable: %s\n", path, err);
		return 0;
	}
	for(i = 0; i < n; i++) {
		if(pts[i]->name[0] == 0 && !pts[i]->revoked &&
			val_autr_num_trusted(pts[i]) > 0)
			ok = 1;
		val_autr_free(pts[i]);
	}
	free(pts);
	if(!ok && verbose)
		printf("%s holds no trusted root anchor\n", path);
	return ok;
}

/**
 * The file just written (mode 0600, owned by who ran this) becomes
 * readable by all, and when root wrote it, the property of the owner of
 * its folder, so that the daemon, running as that user, can read it and
 * replace it. @return 0 or -1 (a message printed).
 */
static int
give_to_folder_owner(const char *path)
{
	char dir[4096];
	const char *sl = strrchr(path, '/');
	struct stat st;
	if(!sl)
		snprintf(dir, sizeof(dir), ".");
	else if(sl == path)
		snprintf(dir, sizeof(dir), "/");
	else
		snprintf(dir, sizeof(dir), "%.*s", (int)(sl - path), path);
	if(chmod(path, 0644) != 0) {
		fprintf(stderr, "petrel-anchor: chmod %s: %s\n", path,
			strerror(errno));
		return -1;
	}
	if(geteuid() != 0 || stat(dir, &st) != 0 || st.st_uid == 0)
		return 0;
	if(chown(path, st.st_uid, st.st_gid) != 0) {
		fprintf(stderr, "petrel-anchor: chown %s to the owner of %s: "
			"%s\n", path, dir, strerror(errno));
		return -1;
	}
	return 0;
}

/** write the built-in anchors to path; @return 0 or -1 */
static int
write_builtin(const char *path)
{
	size_t n, i;
	const char *const *ds = val_anchor_builtin_root(&n);
	uint8_t root[1] = { 0 };
	struct val_autr_point *tp = val_autr_create(root, DNS_CLASS_IN);
	struct val_pres_rr *rr = malloc(sizeof(*rr));
	char err[1024];
	int ret = -1;
	if(!tp || !rr) {
		fprintf(stderr, "petrel-anchor: out of memory\n");
		goto done;
	}
	for(i = 0; i < n; i++) {
		if(val_pres_parse_rr(ds[i], 172800, NULL, NULL, rr, err,
			sizeof(err)) != 0 || !val_autr_add_key(tp, rr->type,
			rr->rdata, rr->rdlen, rr->ttl, VAL_AUTR_VALID, 0, 0)) {
			fprintf(stderr, "petrel-anchor: built-in anchor %zu: "
				"%s\n", i, err);
			goto done;
		}
	}
	if(val_autr_write_file(tp, path, err, sizeof(err)) != 0) {
		fprintf(stderr, "petrel-anchor: %s\n", err);
		goto done;
	}
	if(give_to_folder_owner(path) != 0)
		goto done;
	ret = 0;
done:
	free(rr);
	val_autr_free(tp);
	return ret;
}

/** the program */
int
main(int argc, char *argv[])
{
	const char *path = ANCHOR_DEFAULT_FILE;
	int c, force = 0, list = 0, verbose = 0;
	while((c = getopt(argc, argv, "a:Flvh")) != -1) {
		switch(c) {
		case 'a': path = optarg; break;
		case 'F': force = 1; break;
		case 'l': list = 1; break;
		case 'v': verbose = 1; break;
		default: usage();
		}
	}
	if(optind != argc)
		usage();
	if(list) {
		size_t n, i;
		const char *const *ds = val_anchor_builtin_root(&n);
		for(i = 0; i < n; i++)
			printf("%s\n", ds[i]);
		return 0;
	}
	if(!force && file_usable(path, verbose)) {
		if(verbose)
			printf("%s holds a usable anchor, left alone\n", path);
		return 0;
	}
	if(write_builtin(path) != 0)
		return 2;
	if(verbose)
		printf("wrote the built-in root anchors to %s\n", path);
	return 1;
}
