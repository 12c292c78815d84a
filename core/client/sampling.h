/* sampling.h - CPU samples and context switches of every thread of the process, from the
 * kernel (perf_event_open), while a server or the in-process capture is connected.
 */
#ifndef TRACYC_CLIENT_SAMPLING_H
#define TRACYC_CLIENT_SAMPLING_H

#include <stdint.h>

/* Samples per second per running thread unless TRACY_SAMPLING_HZ says otherwise. */
#define TC_DEFAULT_SAMPLING_HZ 1000

#endif
