/* switch_rules.h - the checks upstream's server (TracyWorker.cpp, ProcessContextSwitch)
 * makes on each ContextSwitch item with assertions: fed the items in stream order, it says
 * which one an assertion-enabled tracy-capture would abort on. */
#ifndef TRACYC_TEST_SWITCH_RULES_H
#define TRACYC_TEST_SWITCH_RULES_H

#include <stdint.h>

struct ts_rules;

struct ts_rules *ts_rules_new(void);
void ts_rules_free(struct ts_rules *r);
/* NULL when the server takes it, else what it asserts. */
const char *ts_rules_switch(struct ts_rules *r, int64_t time, uint32_t old_tid, uint32_t new_tid, uint8_t cpu);

#endif
