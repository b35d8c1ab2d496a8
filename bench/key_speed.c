/* The cost of a strategy's key in the core (bench/key_speed.py compiles and runs it):
 * a seat's hand key (SipHash-2-4 of 24 bytes, _siphash.h, once per seat and hand), the key of
 * a decision on top of it (one splitmix64), and the old derivation's per-decision cost (two
 * splitmix64 of the chain). Each loop feeds its result into the next call, so that a figure
 * is a call's latency, as the core's turn loop meets it.
 *
 * usage: ./key_speed [N]   (prints one line per figure, ns per call) */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "../dominosim/engine/_siphash.h"

static inline uint64_t sm(uint64_t x) { /* splitmix64 (_core.c's sm) */
    uint64_t z = x + UINT64_C(0x9E3779B97F4A7C15);
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

static double seconds(void) { return (double)clock() / CLOCKS_PER_SEC; }

int main(int argc, char **argv) {
    long n = argc > 1 ? atol(argv[1]) : 20000000L;
    uint64_t k0 = UINT64_C(0x0123456789abcdef), k1 = UINT64_C(0xfedcba9876543210), acc = 1;
    double t = seconds();
    for (long i = 0; i < n; i++) acc = sip24_words3(k0, k1, acc, (uint64_t)i, (uint64_t)(i & 3));
    double seat = (seconds() - t) / (double)n * 1e9;
    t = seconds();
    for (long i = 0; i < n; i++) acc = sm(acc ^ (uint64_t)i);
    double dec = (seconds() - t) / (double)n * 1e9;
    t = seconds();
    for (long i = 0; i < n; i++) acc = sm(sm(acc ^ (uint64_t)i) ^ (uint64_t)(i & 3));
    double old = (seconds() - t) / (double)n * 1e9;
    printf("seat hand key (SipHash-2-4, 24 bytes): %.2f ns\n", seat);
    printf("decision key (one splitmix64): %.2f ns\n", dec);
    printf("old decision key (two splitmix64): %.2f ns\n", old);
    printf("(check %llu)\n", (unsigned long long)(acc & 0xff));
    return 0;
}
