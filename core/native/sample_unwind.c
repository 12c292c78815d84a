/* sample_unwind.c - see sample_unwind.h. The register layouts follow the kernel's
 * perf_regs.h and the DWARF numbering libdwfl expects (as perf's unwind-libdw does). */
#include "native/sample_unwind.h"

#include "native/loader_stamp.h"

#include "native/libdw.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if defined(__x86_64__)
/* perf: AX BX CX DX SI DI BP SP IP (0-8), R8-R15 (16-23). */
#define REGS_MASK (0x1ffull | (0xffull << 16))
#define REGS_COUNT 17
#define SP_INDEX 7
#elif defined(__aarch64__)
/* perf: X0-X30 (0-30), SP (31), PC (32). */
#define REGS_MASK ((1ull << 33) - 1)
#define REGS_COUNT 33
#define SP_INDEX 31
#else
#define REGS_MASK 0ull
#define REGS_COUNT 0
#define SP_INDEX 0
#endif

struct sample {
    const uint64_t *regs;
    const uint8_t *stack;
    size_t stack_len;
    uint32_t tid;
};

struct tcn_sample_unwinder {
    const struct tcn_libdw *dw;
    Dwfl_Callbacks callbacks;
    Dwfl *dwfl;
    FILE *maps; /* /proc/self/maps, kept (tcn_libdw_report_self) */
    struct tcn_loader_stamp loader;
    struct sample current;
    uint64_t *frames;
    int count, max;
};

uint64_t tcn_sample_regs_mask(void)
{
    return REGS_MASK;
}

static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_arg)
{
    (void)dwfl;
    (void)arg;
    (void)thread_arg;
    return 0; /* threads are only ever asked for by id */
}

static bool get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_arg)
{
    (void)dwfl;
    (void)tid;
    *thread_arg = arg;
    return true;
}

/* Only the copied stack is read: the thread has run on since the sample. */
static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
    (void)dwfl;
    const struct tcn_sample_unwinder *u = arg;
    uint64_t sp = u->current.regs[SP_INDEX];
    if (addr < sp || addr - sp + sizeof *result > u->current.stack_len)
        return false;
    memcpy(result, u->current.stack + (addr - sp), sizeof *result);
    return true;
}

static bool set_initial_registers(Dwfl_Thread *thread, void *arg)
{
    const struct tcn_sample_unwinder *u = arg;
    const struct tcn_libdw *dw = u->dw;
    const uint64_t *r = u->current.regs;
#if defined(__x86_64__)
    /* DWARF: rax rdx rcx rbx rsi rdi rbp rsp r8-r15, then rip as the return address. */
    Dwarf_Word d[REGS_COUNT] = {r[0], r[3], r[2], r[1], r[4], r[5], r[6], r[7]};
    for (int i = 0; i < 8; i++)
        d[8 + i] = r[9 + i];
    d[16] = r[8];
    return dw->dwfl_thread_state_registers(thread, 0, REGS_COUNT, d);
#elif defined(__aarch64__)
    Dwarf_Word d[32];
    for (int i = 0; i < 32; i++)
        d[i] = r[i];
    dw->dwfl_thread_state_register_pc(thread, r[32]);
    return dw->dwfl_thread_state_registers(thread, 0, 32, d);
#else
    (void)thread;
    (void)r;
    (void)dw;
    return false;
#endif
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
    .next_thread = next_thread,
    .get_thread = get_thread,
    .memory_read = memory_read,
    .set_initial_registers = set_initial_registers,
};

/* Unwinding needs the call frame information every loaded file has (.eh_frame), not the
 * separate debug files, which would take long to find and read. */
static int no_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base, const char *file_name,
                        const char *debuglink_file, GElf_Word debuglink_crc, char **debuginfo_file_name)
{
    (void)mod;
    (void)userdata;
    (void)modname;
    (void)base;
    (void)file_name;
    (void)debuglink_file;
    (void)debuglink_crc;
    (void)debuginfo_file_name;
    return -1;
}

/* A Dwfl for the modules mapped now, attached to this process's "threads" (ours). */
static int attach(struct tcn_sample_unwinder *u)
{
    const struct tcn_libdw *dw = u->dw;
    if (u->dwfl)
        dw->dwfl_end(u->dwfl);
    u->dwfl = dw->dwfl_begin(&u->callbacks);
    if (!u->dwfl)
        return -1;
    dw->dwfl_report_begin(u->dwfl);
    tcn_libdw_report_self(u->dwfl, &u->maps);
    dw->dwfl_report_end(u->dwfl, NULL, NULL);
    if (!dw->dwfl_attach_state(u->dwfl, NULL, getpid(), &thread_callbacks, u)) {
        dw->dwfl_end(u->dwfl);
        u->dwfl = NULL;
        return -1;
    }
    return 0;
}

void tcn_sample_unwinder_sync(struct tcn_sample_unwinder *u)
{
    if (tcn_loader_changed(&u->loader) || !u->dwfl)
        attach(u);
}

struct tcn_sample_unwinder *tcn_sample_unwinder_new(void)
{
    const struct tcn_libdw *dw = tcn_libdw();
    if (!REGS_COUNT || !dw)
        return NULL;
    struct tcn_sample_unwinder *u = calloc(1, sizeof *u);
    if (!u)
        return NULL;
    u->dw = dw;
    u->callbacks = (Dwfl_Callbacks){.find_elf = tcn_libdw_find_elf, .find_debuginfo = no_debuginfo};
    tcn_sample_unwinder_sync(u);
    return u;
}

void tcn_sample_unwinder_free(struct tcn_sample_unwinder *u)
{
    if (!u)
        return;
    if (u->dwfl)
        u->dw->dwfl_end(u->dwfl);
    if (u->maps)
        fclose(u->maps);
    free(u);
}

static int on_frame(Dwfl_Frame *frame, void *arg)
{
    struct tcn_sample_unwinder *u = arg;
    const struct tcn_libdw *dw = u->dw;
    Dwarf_Addr pc;
    bool activation;
    if (!dw->dwfl_frame_pc(frame, &pc, &activation) || pc == 0)
        return DWARF_CB_ABORT;
    u->frames[u->count++] = activation ? pc : pc - 1;
    return u->count < u->max ? DWARF_CB_OK : DWARF_CB_ABORT;
}

int tcn_sample_unwind(struct tcn_sample_unwinder *u, uint32_t tid, const uint64_t *regs, const uint8_t *stack,
                      size_t stack_len, uint64_t *frames, int max)
{
    if (max <= 0)
        return 0;
    u->current = (struct sample){regs, stack, stack_len, tid};
    u->frames = frames;
    u->count = 0;
    u->max = max;
    if (u->dwfl)
        u->dw->dwfl_getthread_frames(u->dwfl, (pid_t)tid, on_frame, u);
    if (u->count == 0) {
        /* Not even the first frame (no module there): the interrupted instruction. */
#if defined(__x86_64__)
        frames[0] = regs[8];
#elif defined(__aarch64__)
        frames[0] = regs[32];
#endif
        u->count = REGS_COUNT ? 1 : 0;
    }
    return u->count;
}
