/*
** main.c: the podsim executable (skeleton; the scenario host lands next).
*/
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "--version") == 0) {
    printf("podsim %s\n", POD_VERSION);
    return 0;
  }
  fprintf(stderr, "usage: podsim --version\n");
  return 2;
}
