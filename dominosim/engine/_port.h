/* Portability: the few compiler-specific things the core uses, behind one macro each.
 *
 *   DS_CTZ64(x)     the index of the lowest set bit of a 64-bit word (x != 0)
 *   DS_CTZ32(x)     the same for a 32-bit word (x != 0)
 *   DS_PREFETCH(p)  a hint that *p is read soon (no effect on results)
 *   DS_FLATTEN      inline every call inside this function (a speed hint only)
 *   DS_NOINLINE     never inline this function (a build-time hint only)
 *
 * GCC and Clang get their builtins and attributes, MSVC its intrinsics
 * (_BitScanForward64, _mm_prefetch, __declspec(noinline)). Any other compiler, or any
 * compiler built with -DDOMINOSIM_PORTABLE_FALLBACK (CI builds the core so once and runs its
 * tests: the branch MSVC would take, in plain C, is exercised on Linux), gets plain C:
 * a de Bruijn multiplication for the bit scans and no hints. Every branch computes the same
 * values; only the speed differs.
 */
#ifndef DOMINOSIM_PORT_H
#define DOMINOSIM_PORT_H

#include <stdint.h>

#if defined(DOMINOSIM_PORTABLE_FALLBACK)
#define DS_PORT_PLAIN 1
#elif defined(__GNUC__) || defined(__clang__)
#define DS_PORT_GNU 1
#elif defined(_MSC_VER)
#define DS_PORT_MSVC 1
#else
#define DS_PORT_PLAIN 1
#endif

#if defined(DS_PORT_GNU)

#define DS_CTZ64(x) __builtin_ctzll((unsigned long long)(x))
#define DS_CTZ32(x) __builtin_ctz((unsigned)(x))
#define DS_PREFETCH(p) __builtin_prefetch(p)
#define DS_FLATTEN __attribute__((flatten))
#define DS_NOINLINE __attribute__((noinline))

#elif defined(DS_PORT_MSVC)

#include <intrin.h>
#include <xmmintrin.h>

static __forceinline int ds_ctz64(uint64_t x) {
    unsigned long index;
    _BitScanForward64(&index, x);
    return (int)index;
}
#define DS_CTZ64(x) ds_ctz64((uint64_t)(x))
#define DS_CTZ32(x) ds_ctz64((uint64_t)(uint32_t)(x))
#define DS_PREFETCH(p) _mm_prefetch((const char *)(p), _MM_HINT_T0)
#define DS_FLATTEN
#define DS_NOINLINE __declspec(noinline)

#else /* plain C */

/* the position of each isolated bit 2^i in the top 6 bits of 2^i * DS_DEBRUIJN64 */
#define DS_DEBRUIJN64 UINT64_C(0x03F79D71B4CB0A89)
static const int8_t DS_DEBRUIJN_INDEX[64] = {
    0,  1,  48, 2,  57, 49, 28, 3,  61, 58, 50, 42, 38, 29, 17, 4,
    62, 55, 59, 36, 53, 51, 43, 22, 45, 39, 33, 30, 24, 18, 12, 5,
    63, 47, 56, 27, 60, 41, 37, 16, 54, 35, 52, 21, 44, 32, 23, 11,
    46, 26, 40, 15, 34, 20, 31, 10, 25, 14, 19, 9,  13, 8,  7,  6,
};
static inline int ds_ctz64(uint64_t x) {
    uint64_t lowest = x & (~x + 1); /* the lowest set bit alone (x != 0) */
    return DS_DEBRUIJN_INDEX[(lowest * DS_DEBRUIJN64) >> 58];
}
#define DS_CTZ64(x) ds_ctz64((uint64_t)(x))
#define DS_CTZ32(x) ds_ctz64((uint64_t)(uint32_t)(x))
#define DS_PREFETCH(p) ((void)(p))
#define DS_FLATTEN
#define DS_NOINLINE

#endif

#endif /* DOMINOSIM_PORT_H */
