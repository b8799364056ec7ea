/*
** bench_capacity.c: the machine's free CPU capacity right now, printed
** beside every thread-scaling figure (run by ./build.sh bench and called
** by the benchmark scripts in the same rounds as their measurements).
**
** The same pure CPU spin (an integer hash chain, no memory traffic) runs
** on one thread, then on two threads at once; free capacity is
** 2 * t(1 thread) / t(2 threads): 2.0 when both cores are idle, 1.0 when
** other work leaves one core's worth.  `--value` prints the number only.
*/
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <uv.h>

#define SPIN_STEPS 60000000ull

static void spin(void *arg) {
  uint64_t x = 0x9e3779b97f4a7c15ull;
  for (uint64_t i = 0; i < SPIN_STEPS; i++)
    x = (x ^ (x >> 31)) * 0xbf58476d1ce4e5b9ull + i;
  *(volatile uint64_t *)arg = x;
}

static double now_s(void) {
  return (double)uv_hrtime() * 1e-9;
}

int main(int argc, char **argv) {
  uint64_t sink[2];
  double t0 = now_s();
  spin(&sink[0]);
  double t1 = now_s() - t0;
  uv_thread_t th[2];
  t0 = now_s();
  for (int i = 0; i < 2; i++) uv_thread_create(&th[i], spin, &sink[i]);
  for (int i = 0; i < 2; i++) uv_thread_join(&th[i]);
  double t2 = now_s() - t0;
  double cap = 2.0 * t1 / t2;
  if (argc > 1 && strcmp(argv[1], "--value") == 0) {
    printf("%.2f\n", cap);
    return 0;
  }
  printf(
      "capacity_free_cores: %.2f of 2 (the same CPU spin: %.3f s on 1 thread, "
      "%.3f s on 2 threads at once)\n",
      cap, t1, t2);
  return 0;
}
