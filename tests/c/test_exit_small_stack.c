/* A program whose exit runs on a small stack of its own (a ucontext, as a coroutine or fiber
 * library's) still gets its samples' names in the in-process capture. At exit the profiler
 * resolves the last symbols on the exiting thread when its stack has room (no resolver
 * thread to wake under load); resolving reads DWARF and demangles on the stack, so on a
 * stack it cannot size it leaves that to the resolver thread, as before. Writing the output
 * there must fit too: an exporter once kept its 64 KiB output buffer on the stack. Each
 * child exits from a small stack (a guard page below it) after burning CPU in
 * small_stack_burn; its output must name it (the formats that list samples) or at least
 * be written, in every format. */
#include "test_child.h"
#include "test_util.h"
#include "tracyc.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

#define BURN_NS 30000000 /* 150 samples at 5 kHz */

static ucontext_t main_context, small_context;

__attribute__((noinline)) static void small_stack_burn(void)
{
    tt_burn_cpu_ns(BURN_NS);
    __asm__ volatile(""); /* not a tail call: this frame stays on the sampled stacks */
}

static void exit_on_small_stack(void)
{
    exit(0); /* the profiler's exit handler runs here */
}

static int child(const char *output, size_t stack_size)
{
    setenv("TRACYC_OUTPUT", output, 1);
    setenv("TRACY_SAMPLING_HZ", "5000", 1);
    ___tracy_startup_profiler();
    small_stack_burn();
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    char *stack = mmap(NULL, stack_size + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (stack == MAP_FAILED || mprotect(stack, page, PROT_NONE) != 0)
        return 2; /* (an overflow faults there instead of writing over other memory) */
    getcontext(&small_context);
    small_context.uc_stack.ss_sp = stack + page;
    small_context.uc_stack.ss_size = stack_size;
    small_context.uc_link = &main_context;
    makecontext(&small_context, exit_on_small_stack, 0);
    swapcontext(&main_context, &small_context);
    return 3; /* not reached: the small stack's function exits */
}

/* One child per output format, each exiting from a stack of stack_kib; names says whether
 * the format lists the samples' functions. */
static void exit_case(const char *dir, size_t stack_kib, const char *ext, int names)
{
    char output[PATH_MAX + 32];
    snprintf(output, sizeof output, "%s/profile-%zuk.%s", dir, stack_kib, ext);
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0)
        _exit(child(output, stack_kib << 10));
    int status = 0;
    CHECK(tt_child_ended(pid, &status, 30)); /* 7 children within ctest's 300 s */
    tt_check(WIFEXITED(status) && WEXITSTATUS(status) == 0,
             "the child exited from its %zu KiB stack writing .%s (status 0x%x)", stack_kib, ext, status);
    char *text = tt_read_file(output);
    tt_check(text && *text, "it wrote %s", output);
    if (names) {
        tt_check(text && strstr(text, "small_stack_burn"), "its samples are named (small_stack_burn in %s)", output);
        if (text && !strstr(text, "small_stack_burn"))
            fprintf(stderr, "%s:\n%.4000s\n", output, text);
    }
    free(text);
    unlink(output);
}

int main(void)
{
    if (!tt_sampling_expected()) {
        printf("test_exit_small_stack: perf events not allowed here: skipped\n");
        return 77;
    }
    char dir[PATH_MAX];
    tt_temp_path(dir, sizeof dir, "tracyc-small-stack-XXXXXX");
    if (!mkdtemp(dir))
        return 2;
    tt_use_free_port();

    exit_case(dir, 128, "folded", 1);
    /* 64 KiB: a fiber library's usual stack */
    exit_case(dir, 64, "folded", 1);
    exit_case(dir, 64, "json", 1);
    exit_case(dir, 64, "svg", 1);
    exit_case(dir, 64, "csv", 0);
    exit_case(dir, 64, "txt", 0);
    exit_case(dir, 64, "pftrace", 0);
    rmdir(dir);
    return tt_finish("test_exit_small_stack");
}
