/* loader_stamp.h - noticing that the program loaded or unloaded a library (dlopen, dlclose)
 * since a table of its mappings was built, from the loader's own counters (no /proc read). */
#ifndef TRACYC_NATIVE_LOADER_STAMP_H
#define TRACYC_NATIVE_LOADER_STAMP_H

struct tcn_loader_stamp {
    unsigned long long adds, subs; /* 0, 0: never taken */
};

/* 1 when objects were loaded or unloaded since *stamp was taken (always, the first time),
 * and *stamp is now; 0 when nothing changed. */
int tcn_loader_changed(struct tcn_loader_stamp *stamp);

#endif
