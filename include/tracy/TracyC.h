/* Compatibility include: code written for upstream Tracy's <tracy/TracyC.h> builds
 * unchanged against tracyc. */
#include "../tracyc.h"
