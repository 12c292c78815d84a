/* replay.c - the list of set-up records replayed to servers that connect later. */
#include "client/replay.h"

#include <stdlib.h>
#include <string.h>

struct entry {
    uint64_t subject; /* 0: none (app info) */
    union tc_rec *rec;
    struct entry *next;
};

static struct entry *head, **tail = &head;
static size_t app_info_bytes;

/* What a set-up record describes, type in the top byte; 0 for app info and records that
 * are not replayed. */
static uint64_t subject_of(const union tc_rec *r)
{
    uint64_t type = (uint64_t)r->any.type << 56, id;
    switch (r->any.type) {
    case TC_REC_LOCK_ANNOUNCE:
        id = r->lock_announce.lock;
        break;
    case TC_REC_LOCK_NAME:
        id = r->lock_name.lock;
        break;
    case TC_REC_PLOT_CONFIG:
        id = (uint64_t)(uintptr_t)r->plot_config.name;
        break;
    case TC_REC_GPU_NEW_CONTEXT:
        id = r->gpu_new_context.context;
        break;
    case TC_REC_GPU_CONTEXT_NAME:
        id = r->gpu_context_name.context;
        break;
    case TC_REC_SECTION_SETUP:
        id = r->section_setup.category;
        break;
    default:
        return 0;
    }
    return type | (id & 0x00ffffffffffffffULL);
}

static void unlink_entry(struct entry **at)
{
    struct entry *gone = *at;
    *at = gone->next;
    if (tail == &gone->next)
        tail = at;
    free(gone->rec);
    free(gone);
}

static void forget_lock(uint32_t lock)
{
    uint64_t announce = (uint64_t)TC_REC_LOCK_ANNOUNCE << 56 | lock, name = (uint64_t)TC_REC_LOCK_NAME << 56 | lock;
    for (struct entry **at = &head; *at;) {
        if ((*at)->subject == announce || (*at)->subject == name)
            unlink_entry(at);
        else
            at = &(*at)->next;
    }
}

void tc_replay_note(const union tc_rec *r)
{
    if (r->any.type == TC_REC_LOCK_TERMINATE) {
        forget_lock(r->lock_terminate.lock);
        return;
    }
    uint64_t subject = subject_of(r);
    int app_info = r->any.type == TC_REC_APP_INFO;
    if (!subject && (!app_info || app_info_bytes + r->any.len > TC_REPLAY_APP_INFO))
        return;
    size_t size = tc_rec_size(r->any.type, r->any.len);
    union tc_rec *copy = malloc(size);
    if (!copy)
        return;
    memcpy(copy, r, size);
    if (subject) {
        for (struct entry *e = head; e; e = e->next) {
            if (e->subject == subject) {
                free(e->rec);
                e->rec = copy;
                return;
            }
        }
    }
    struct entry *e = malloc(sizeof *e);
    if (!e) {
        free(copy);
        return;
    }
    *e = (struct entry){subject, copy, NULL};
    *tail = e;
    tail = &e->next;
    if (app_info)
        app_info_bytes += r->any.len;
}

void tc_replay_to(struct tc_conn *c)
{
    for (struct entry *e = head; e; e = e->next)
        tc_conn_record(c, NULL, e->rec);
}
