/* sample_unwind.c - see sample_unwind.h. The register layouts follow the kernel's
 * perf_regs.h and the DWARF numbering libdwfl expects (as perf's unwind-libdw does). */
#include "native/sample_unwind.h"

#include "native/loader_stamp.h"

#include "native/libdw.h"

#include <dwarf.h>

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

#if defined(__x86_64__)
/* How to find a caller from a PC, as libdwfl would (frame_unwind.c's handle_cfi), for the
 * common case only: a CFA of RSP or RBP plus an offset, and the return address, RBP and RSP
 * each undefined, the same value, saved at CFA+N or equal to CFA+N. Every other register
 * only matters to a CFA or rule on it, which is not this case. */
enum { RULE_UNDEFINED, RULE_SAME, RULE_SAVED_AT, RULE_VALUE };
enum { RULE_RA, RULE_RBP, RULE_RSP, RULE_REGS };
struct unwind_rule {
    uint64_t pc;     /* the lookup PC (0: a free slot) */
    uint8_t cfa_reg; /* DWARF 6 (RBP) or 7 (RSP); 0: "complex", libdw unwinds the sample */
    uint8_t kind[RULE_REGS];
    int32_t cfa_offset;
    int32_t offset[RULE_REGS];
};
/* Open addressing, emptied when three quarters full and at each attach (libraries moved). */
#define RULE_SLOTS 4096
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
#if defined(__x86_64__)
    struct unwind_rule *rules; /* RULE_SLOTS, allocated at the first sample */
    int rules_used;
#endif
    unsigned long fast, slow; /* samples unwound each way (tests) */
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
#if defined(__x86_64__)
    if (u->rules)
        memset(u->rules, 0, RULE_SLOTS * sizeof *u->rules);
    u->rules_used = 0;
#endif
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
    u->callbacks = (Dwfl_Callbacks){.find_elf = tcn_libdw_find_elf_made, .find_debuginfo = no_debuginfo};
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
#if defined(__x86_64__)
    free(u->rules);
#endif
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

#if defined(__x86_64__)
/* One register's rule from dwarf_frame_register's form of it; -1 for any other rule. */
static int rule_of(const struct tcn_libdw *dw, Dwarf_Frame *frame, int regno, uint8_t *kind, int32_t *offset)
{
    Dwarf_Op mem[3], *ops;
    size_t nops;
    if (dw->dwarf_frame_register(frame, regno, mem, &ops, &nops) != 0)
        return -1;
    *offset = 0;
    if (nops == 0) {
        if (ops != mem && ops != NULL)
            return -1;
        *kind = ops == mem ? RULE_UNDEFINED : RULE_SAME;
        return 0;
    }
    /* CFA+N as libdw spells it: call_frame_cfa [plus_uconst N] [stack_value]. */
    if (ops != mem || ops[0].atom != DW_OP_call_frame_cfa)
        return -1;
    size_t i = 1;
    Dwarf_Word n = 0;
    if (i < nops && ops[i].atom == DW_OP_plus_uconst)
        n = ops[i++].number;
    *kind = RULE_SAVED_AT;
    if (i < nops && ops[i].atom == DW_OP_stack_value) {
        *kind = RULE_VALUE;
        i++;
    }
    if (i != nops || (int64_t)n != (int32_t)n)
        return -1;
    *offset = (int32_t)n;
    return 0;
}

/* The rule at lookup PC pc from the CFI libdwfl would take it from (__libdwfl_frame_unwind:
 * .eh_frame, then .debug_frame); cfa_reg 0 when libdw's own unwinding is needed (no CFI,
 * so its frame-pointer fallback; a signal frame; expressions; other registers). */
static void rule_compute(const struct tcn_sample_unwinder *u, uint64_t pc, struct unwind_rule *r)
{
    const struct tcn_libdw *dw = u->dw;
    *r = (struct unwind_rule){.pc = pc};
    Dwfl_Module *mod = dw->dwfl_addrmodule(u->dwfl, pc);
    if (!mod)
        return;
    Dwarf_Addr bias;
    Dwarf_Frame *frame = NULL;
    Dwarf_CFI *cfi = dw->dwfl_module_eh_cfi(mod, &bias);
    if (!cfi || dw->dwarf_cfi_addrframe(cfi, pc - bias, &frame) != 0) {
        frame = NULL;
        cfi = dw->dwfl_module_dwarf_cfi(mod, &bias);
        if (!cfi || dw->dwarf_cfi_addrframe(cfi, pc - bias, &frame) != 0)
            return;
    }
    bool signal = false;
    Dwarf_Op *cfa;
    size_t nops;
    static const int regnos[RULE_REGS] = {16, 6, 7};
    uint8_t kind[RULE_REGS];
    int32_t offset[RULE_REGS];
    int ok = dw->dwarf_frame_info(frame, NULL, NULL, &signal) == 16 && !signal &&
             dw->dwarf_frame_cfa(frame, &cfa, &nops) == 0 && nops == 1 && cfa[0].atom == DW_OP_bregx &&
             (cfa[0].number == 6 || cfa[0].number == 7) && (int64_t)cfa[0].number2 == (int32_t)cfa[0].number2;
    for (int i = 0; ok && i < RULE_REGS; i++)
        ok = rule_of(dw, frame, regnos[i], &kind[i], &offset[i]) == 0;
    /* The return address must come from the stack (or end the stack). */
    ok = ok && (kind[RULE_RA] == RULE_UNDEFINED || kind[RULE_RA] == RULE_SAVED_AT);
    if (ok) {
        r->cfa_reg = (uint8_t)cfa[0].number;
        r->cfa_offset = (int32_t)cfa[0].number2;
        memcpy(r->kind, kind, sizeof kind);
        memcpy(r->offset, offset, sizeof offset);
    }
    free(frame);
}

static const struct unwind_rule *rule_at(struct tcn_sample_unwinder *u, uint64_t pc)
{
    if (!u->rules && !(u->rules = calloc(RULE_SLOTS, sizeof *u->rules)))
        return NULL;
    size_t i = (size_t)((pc * 0x9e3779b97f4a7c15ull) >> 52) & (RULE_SLOTS - 1);
    for (; u->rules[i].pc; i = (i + 1) & (RULE_SLOTS - 1))
        if (u->rules[i].pc == pc)
            return &u->rules[i];
    if (u->rules_used >= RULE_SLOTS / 4 * 3) {
        memset(u->rules, 0, RULE_SLOTS * sizeof *u->rules);
        u->rules_used = 0;
        i = (size_t)((pc * 0x9e3779b97f4a7c15ull) >> 52) & (RULE_SLOTS - 1);
    }
    rule_compute(u, pc, &u->rules[i]);
    u->rules_used++;
    return &u->rules[i];
}

/* A register as libdwfl keeps it in a frame: unset when its rule could not be applied. */
struct reg {
    uint64_t value;
    bool set;
};

static struct reg reg_unwound(const struct tcn_sample_unwinder *u, struct reg old, struct reg cfa, uint8_t kind,
                              int32_t offset)
{
    struct reg r = {0, false};
    switch (kind) {
    case RULE_SAME:
        return old;
    case RULE_SAVED_AT:
        r.set = cfa.set && memory_read(NULL, cfa.value + (uint64_t)(int64_t)offset, &r.value, (void *)u);
        return r;
    case RULE_VALUE:
        return (struct reg){cfa.value + (uint64_t)(int64_t)offset, cfa.set};
    }
    return r;
}

/* The walk dwfl_getthread_frames and on_frame make, for the frames whose rules are all
 * simple (rule_compute): the same frames, ending where libdw's would (an undefined or
 * unreadable return address, pc 0, max). -1 at the first PC that is not simple, for libdw. */
static int unwind_fast(struct tcn_sample_unwinder *u, uint64_t *frames, int max)
{
    const uint64_t *regs = u->current.regs;
    uint64_t pc = regs[8];
    struct reg bp = {regs[6], true}, sp = {regs[7], true};
    if (pc == 0)
        return -1;
    for (int count = 0;;) {
        uint64_t lookup = count ? pc - 1 : pc;
        const struct unwind_rule *r = rule_at(u, lookup);
        if (!r || !r->cfa_reg)
            return -1;
        frames[count++] = lookup;
        if (count == max)
            return count;
        struct reg cfa = r->cfa_reg == 7 ? sp : bp;
        cfa.value += (uint64_t)(int64_t)r->cfa_offset;
        struct reg ra = reg_unwound(u, (struct reg){0, false}, cfa, r->kind[RULE_RA], r->offset[RULE_RA]);
        if (!ra.set || ra.value == 0)
            return count;
        struct reg next_bp = reg_unwound(u, bp, cfa, r->kind[RULE_RBP], r->offset[RULE_RBP]);
        sp = reg_unwound(u, sp, cfa, r->kind[RULE_RSP], r->offset[RULE_RSP]);
        bp = next_bp;
        pc = ra.value;
    }
}
#endif

int tcn_sample_unwind_libdw(struct tcn_sample_unwinder *u, uint32_t tid, const uint64_t *regs, const uint8_t *stack,
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

int tcn_sample_unwind(struct tcn_sample_unwinder *u, uint32_t tid, const uint64_t *regs, const uint8_t *stack,
                      size_t stack_len, uint64_t *frames, int max)
{
#if defined(__x86_64__)
    if (u->dwfl && max > 0) {
        u->current = (struct sample){regs, stack, stack_len, tid};
        int n = unwind_fast(u, frames, max);
        if (n > 0) {
            u->fast++;
            return n;
        }
    }
#endif
    u->slow++;
    return tcn_sample_unwind_libdw(u, tid, regs, stack, stack_len, frames, max);
}

void tcn_sample_unwinder_counts(const struct tcn_sample_unwinder *u, unsigned long *fast, unsigned long *slow)
{
    *fast = u->fast;
    *slow = u->slow;
}
