/*
** failalloc.h: fail the k-th allocation, for unit tests (include once, in
** the test's .c file).  Like Lua's testes/memerr.lua: set `countdown` to k
** and the k-th allocation from then on (malloc, calloc or realloc, on any
** thread) returns NULL; `live` counts allocations not yet freed, so a test
** can check that a failed operation leaked nothing.  The process's malloc
** family is interposed through glibc's __libc_* entry points, so GSL's and
** libuv's allocations fail too.  Defines POD_ALLOC_FAIL only on glibc and
** not under sanitizers, which interpose malloc themselves.
*/
#ifndef POD_TEST_FAILALLOC_H
#define POD_TEST_FAILALLOC_H

#if defined(__GLIBC__) && !defined(__SANITIZE_ADDRESS__) && \
    !defined(__SANITIZE_THREAD__)
#define POD_ALLOC_FAIL 1
#include <stdatomic.h>
#include <stddef.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);
static atomic_long countdown = -1; /* the allocation that fails; < 0: none */
static atomic_long live;           /* allocations not yet freed */

static int fail_now(void) {
  if (atomic_load(&countdown) < 0) return 0;
  return atomic_fetch_sub(&countdown, 1) == 0;
}
void *malloc(size_t n) {
  if (fail_now()) return NULL;
  void *p = __libc_malloc(n);
  if (p) atomic_fetch_add(&live, 1);
  return p;
}
void *calloc(size_t a, size_t b) {
  if (fail_now()) return NULL;
  void *p = __libc_calloc(a, b);
  if (p) atomic_fetch_add(&live, 1);
  return p;
}
void *realloc(void *q, size_t n) {
  if (fail_now()) return NULL;
  void *p = __libc_realloc(q, n);
  if (p && !q) atomic_fetch_add(&live, 1);
  return p;
}
void free(void *p) {
  if (p) atomic_fetch_sub(&live, 1);
  __libc_free(p);
}
#endif

#endif
