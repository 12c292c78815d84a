/* replay.h - the set-up records a server that connects later must see before the events
 * that refer to them: lock announcements and names, plot configurations, app info, GPU
 * contexts and their names, section set-ups. The worker hands every serial record over as
 * it drains it and replays the list to each new connection.
 *
 * The list stays bounded: a record replaces the one with the same subject (the latest
 * configuration of a plot, name of a lock, ... is what counts), a lock's records go when
 * it is terminated, and app info, whose lines add up, is kept up to TC_REPLAY_APP_INFO
 * bytes (later lines reach only the servers connected when they are made). */
#ifndef TRACYC_CLIENT_REPLAY_H
#define TRACYC_CLIENT_REPLAY_H

#include "client/conn.h"
#include "client/record.h"

#define TC_REPLAY_APP_INFO (64 * 1024)

/* Takes note of a serial record (a copy, if it is one to replay). Worker thread only. */
void tc_replay_note(const union tc_rec *r);
/* Encodes the list on c, oldest first. */
void tc_replay_to(struct tc_conn *c);

#endif
