/* model_internal.h - what model.c (threads, zones) and model_records.c (everything else)
 * share. Not for exporters. */
#ifndef TRACYC_TRACE_MODEL_INTERNAL_H
#define TRACYC_TRACE_MODEL_INTERNAL_H

#include "trace/model.h"
#include "util/array.h"

/* The thread with this id, created on first sight; NULL when out of memory. Events of
 * a thread running a fiber already carry the fiber's id (the decoder sees to it). */
struct tct_thread *tct_model_thread(struct tct_trace *tr, uint32_t id);
/* Gives the thread its server number, as Tracy's server does on first use. */
void tct_model_number_thread(struct tct_trace *tr, struct tct_thread *t);
/* A copy of ev's text up to its first NUL, in malloc'd memory (NULL when out of memory). */
char *tct_model_strdup_text(const struct tcd_event *ev);
/* A copy of all of ev's text, NULs included, ended by one more; *len = its bytes. */
char *tct_model_dup_text(const struct tcd_event *ev, size_t *len);

void tct_model_message(struct tct_trace *tr, const struct tcd_event *ev);
void tct_model_app_info(struct tct_trace *tr, const struct tcd_event *ev);
void tct_model_plot(struct tct_trace *tr, const struct tcd_event *ev);
void tct_model_plot_config(struct tct_trace *tr, const struct tcd_event *ev);
void tct_model_frame(struct tct_trace *tr, const struct tcd_event *ev);
void tct_model_memory(struct tct_trace *tr, const struct tcd_event *ev);
void tct_model_lock(struct tct_trace *tr, const struct tcd_event *ev);
void tct_model_gpu(struct tct_trace *tr, const struct tcd_event *ev);
void tct_model_crash(struct tct_trace *tr, const struct tcd_event *ev);
void tct_model_section(struct tct_trace *tr, const struct tcd_event *ev); /* model_sections.c */
void tct_model_finish_sections(struct tct_trace *tr);
void tct_model_free_sections(struct tct_trace *tr);
size_t tct_model_sections_memory(const struct tct_trace *tr);
void tct_model_system(struct tct_trace *tr, const struct tcd_event *ev); /* switches, wakeups */
void tct_model_finish_gpu(struct tct_trace *tr);
void tct_model_free_records(struct tct_trace *tr);
size_t tct_model_records_memory(const struct tct_trace *tr);

#endif
