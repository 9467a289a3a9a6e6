/* A program that loads its MPI privately, as Python's mpi4py or a plugin
 * host does: dlopen(RTLD_LOCAL) of a plugin linked with libmpi; the program
 * itself is not. Under the preloaded profiler the plugin's ring must run and
 * be profiled (the MPICH build of libcommprof takes libmpi's functions as
 * weak references and has to find this libmpi first).
 *   dlopen_main PLUGIN */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  void* plugin = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (plugin == NULL) {
    fprintf(stderr, "dlopen_main: %s\n", dlerror());
    return 3;
  }
  void* symbol = dlsym(plugin, "commprof_plugin_ring");
  if (symbol == NULL) return 4;
  int (*run)(void);
  memcpy(&run, &symbol, sizeof run);  /* POSIX: a data pointer holds a function's address */
  return run();
}
