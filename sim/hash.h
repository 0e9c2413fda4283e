/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * hash.h - the 64-bit FNV-1a hash (Fowler, Noll, Vo; the IETF draft
 * draft-eastlake-fnv): fold each byte in with XOR, then multiply by the FNV
 * prime. Not cryptographic: it names RNG streams (rng.c) and run keys. A
 * hash is begun with SIM_FNV1A_BASIS and continued by folding more in.
 */
#ifndef RCUSIM_SIM_HASH_H
#define RCUSIM_SIM_HASH_H

#include <stddef.h>
#include <stdint.h>

#define SIM_FNV1A_BASIS UINT64_C(0xcbf29ce484222325) /* the 64-bit offset basis */
#define SIM_FNV1A_PRIME UINT64_C(0x100000001b3)      /* the 64-bit FNV prime */

/* Fold the @n bytes at @data into the hash @h. */
static inline uint64_t sim_fnv1a(uint64_t h, const void *data, size_t n)
{
	const unsigned char *p = data;
	for (size_t i = 0; i < n; i++) {
		h ^= p[i];
		h *= SIM_FNV1A_PRIME;
	}
	return h;
}

/* Fold the string @s, without its terminating NUL, into @h. */
static inline uint64_t sim_fnv1a_str(uint64_t h, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		h ^= *p;
		h *= SIM_FNV1A_PRIME;
	}
	return h;
}

#endif
