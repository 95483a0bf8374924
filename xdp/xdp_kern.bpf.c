/*
 * xdp/xdp_kern.bpf.c - the XDP program of xdp-interface (compiled by
 * clang -target bpf at build time, carried inside the daemon, loaded by
 * xdp/xdp_sock.c).
 *
 * It looks at each frame the interface receives and redirects to the
 * AF_XDP socket of the frame's receive queue only what petrel's fast path
 * may answer: Ethernet (no VLAN tag), then IPv4 without options and not a
 * fragment, or IPv6 whose next header is UDP (no extension header, so no
 * fragment header), then UDP to an address and port petrel listens on
 * (the petrel_dests map, filled by the daemon: the exact address, or the
 * zero address for a wildcard listener). Everything else, and a frame of
 * a queue without a socket (bpf_redirect_map's XDP_PASS fallback), goes
 * to the kernel untouched. The daemon validates lengths and checksums
 * again in user space: this program only sorts.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/udp.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

/** the key of petrel_dests (the same layout as struct xdp_dest_key in
 * xdp/xdp_sock.c): port in network order, family 4 or 6, the address
 * (IPv4 in the first 4 bytes; all zero for a wildcard listener) */
struct dest_key {
	__u16 port;
	__u16 family;
	__u8 addr[16];
};

/** the AF_XDP socket of each receive queue */
struct {
	__uint(type, BPF_MAP_TYPE_XSKMAP);
	__uint(max_entries, 256);
	__type(key, __u32);
	__type(value, __u32);
} petrel_xsks SEC(".maps");

/** the addresses and ports petrel answers on */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 256);
	__type(key, struct dest_key);
	__type(value, __u32);
} petrel_dests SEC(".maps");

SEC("xdp")
int petrel_xdp(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	struct udphdr *udp;
	struct dest_key k;

	__builtin_memset(&k, 0, sizeof(k));
	if((void *)(eth + 1) > end)
		return XDP_PASS;
	if(eth->h_proto == bpf_htons(ETH_P_IP)) {
		struct iphdr *ip = (void *)(eth + 1);
		if((void *)(ip + 1) > end)
			return XDP_PASS;
		/* options, fragments, not UDP: the kernel's */
		if(ip->version != 4 || ip->ihl != 5 ||
			(ip->frag_off & bpf_htons(0x3fff)) ||
			ip->protocol != IPPROTO_UDP)
			return XDP_PASS;
		udp = (void *)(ip + 1);
		k.family = 4;
		__builtin_memcpy(k.addr, &ip->daddr, 4);
	} else if(eth->h_proto == bpf_htons(ETH_P_IPV6)) {
		struct ipv6hdr *ip6 = (void *)(eth + 1);
		if((void *)(ip6 + 1) > end)
			return XDP_PASS;
		if(ip6->nexthdr != IPPROTO_UDP)
			return XDP_PASS;
		udp = (void *)(ip6 + 1);
		k.family = 6;
		__builtin_memcpy(k.addr, &ip6->daddr, 16);
	} else
		return XDP_PASS;
	if((void *)(udp + 1) > end)
		return XDP_PASS;
	k.port = udp->dest;
	if(!bpf_map_lookup_elem(&petrel_dests, &k)) {
		__builtin_memset(k.addr, 0, sizeof(k.addr));
		if(!bpf_map_lookup_elem(&petrel_dests, &k))
			return XDP_PASS;
	}
	return bpf_redirect_map(&petrel_xsks, ctx->rx_queue_index, XDP_PASS);
}

char _license[] SEC("license") = "Dual BSD/GPL";
