/* welcome.h - the 1170-byte WelcomeMessage describing this process and its clock. */
#ifndef TRACYC_CLIENT_WELCOME_H
#define TRACYC_CLIENT_WELCOME_H

#include <stdint.h>

void tc_welcome_build(uint8_t out[1170]);

#endif
