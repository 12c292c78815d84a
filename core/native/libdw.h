/* libdw.h - elfutils' libdw and libdwfl, loaded at run time (dlopen, RTLD_LOCAL) instead of
 * linked, so that programs using tracyc need neither libdw.so.1 nor its chain (libelf,
 * libz, liblzma, libbz2, libzstd), and libtracyc.a links with -ltracyc alone. Only the
 * headers (libdw-dev) are needed to build.
 *
 * The symbol resolver (symbols.c) and the sample unwinder (sample_unwind.c) call libdw
 * through the table of function pointers tcn_libdw returns, each with its real prototype.
 * When libdw cannot be loaded they fall back to what works without it, and
 * tcn_libdw_unavailable says why, for one message to each server.
 */
#ifndef TRACYC_NATIVE_LIBDW_H
#define TRACYC_NATIVE_LIBDW_H

#include <elfutils/libdwfl.h>

/* Every function used, with the symbol version it has had since it was introduced (the one
 * a link against libdw binds to, whatever versions later releases add). */
#define TCN_LIBDW_FUNCTIONS(X)                                                                                         \
    X(dwfl_begin, "ELFUTILS_0.122")                                                                                    \
    X(dwfl_end, "ELFUTILS_0.122")                                                                                      \
    X(dwfl_report_begin, "ELFUTILS_0.122")                                                                             \
    X(dwfl_report_end, "ELFUTILS_0.122")                                                                               \
    X(dwfl_report_module, "ELFUTILS_0.122")                                                                            \
    X(dwfl_linux_proc_maps_report, "ELFUTILS_0.122")                                                                   \
    X(dwfl_linux_proc_find_elf, "ELFUTILS_0.122")                                                                      \
    X(dwfl_build_id_find_debuginfo, "ELFUTILS_0.130")                                                                  \
    X(dwfl_addrmodule, "ELFUTILS_0.122")                                                                               \
    X(dwfl_module_address_section, "ELFUTILS_0.127")                                                                   \
    X(dwfl_module_info, "ELFUTILS_0.122")                                                                              \
    X(dwfl_module_build_id, "ELFUTILS_0.138")                                                                          \
    X(dwfl_module_getsymtab, "ELFUTILS_0.122")                                                                         \
    X(dwfl_module_getsym_info, "ELFUTILS_0.158")                                                                       \
    X(dwfl_module_getdwarf, "ELFUTILS_0.122")                                                                          \
    X(dwfl_module_getsrc, "ELFUTILS_0.122")                                                                            \
    X(dwfl_lineinfo, "ELFUTILS_0.122")                                                                                 \
    X(dwfl_attach_state, "ELFUTILS_0.158")                                                                             \
    X(dwfl_thread_state_registers, "ELFUTILS_0.158")                                                                   \
    X(dwfl_thread_state_register_pc, "ELFUTILS_0.158")                                                                 \
    X(dwfl_getthread_frames, "ELFUTILS_0.158")                                                                         \
    X(dwfl_frame_pc, "ELFUTILS_0.158")                                                                                 \
    X(dwfl_module_eh_cfi, "ELFUTILS_0.142")                                                                            \
    X(dwfl_module_dwarf_cfi, "ELFUTILS_0.142")                                                                         \
    X(dwarf_cfi_addrframe, "ELFUTILS_0.142")                                                                           \
    X(dwarf_frame_info, "ELFUTILS_0.142")                                                                              \
    X(dwarf_frame_cfa, "ELFUTILS_0.142")                                                                               \
    X(dwarf_frame_register, "ELFUTILS_0.142")                                                                          \
    X(dwarf_attr, "ELFUTILS_0.122")                                                                                    \
    X(dwarf_attr_integrate, "ELFUTILS_0.122")                                                                          \
    X(dwarf_formstring, "ELFUTILS_0.122")                                                                              \
    X(dwarf_formudata, "ELFUTILS_0.122")                                                                               \
    X(dwarf_diename, "ELFUTILS_0.122")                                                                                 \
    X(dwarf_tag, "ELFUTILS_0.122")                                                                                     \
    X(dwarf_child, "ELFUTILS_0.122")                                                                                   \
    X(dwarf_siblingof, "ELFUTILS_0.122")                                                                               \
    X(dwarf_haspc, "ELFUTILS_0.122")                                                                                   \
    X(dwarf_ranges, "ELFUTILS_0.122")                                                                                  \
    X(dwarf_entrypc, "ELFUTILS_0.122")                                                                                 \
    X(dwarf_lowpc, "ELFUTILS_0.122")                                                                                   \
    X(dwarf_highpc, "ELFUTILS_0.122")                                                                                  \
    X(dwarf_getsrcfiles, "ELFUTILS_0.122")                                                                             \
    X(dwarf_getsrclines, "ELFUTILS_0.122")                                                                             \
    X(dwarf_onesrcline, "ELFUTILS_0.122")                                                                              \
    X(dwarf_lineaddr, "ELFUTILS_0.122")                                                                                \
    X(dwarf_lineno, "ELFUTILS_0.122")                                                                                  \
    X(dwarf_lineendsequence, "ELFUTILS_0.122")                                                                         \
    X(dwarf_linesrc, "ELFUTILS_0.122")                                                                                 \
    X(dwarf_dieoffset, "ELFUTILS_0.122")                                                                               \
    X(dwarf_getelf, "ELFUTILS_0.126")                                                                                  \
    X(dwarf_offdie, "ELFUTILS_0.122")                                                                                  \
    X(dwarf_getaranges, "ELFUTILS_0.122")                                                                              \
    X(dwarf_onearange, "ELFUTILS_0.122")                                                                               \
    X(dwarf_getarangeinfo, "ELFUTILS_0.122")                                                                           \
    X(dwarf_filesrc, "ELFUTILS_0.122")                                                                                 \
    X(elf_begin, "ELFUTILS_1.0")                                                                                       \
    X(elf_memory, "ELFUTILS_1.0")                                                                                      \
    X(elf_end, "ELFUTILS_1.0")                                                                                         \
    X(elf_nextscn, "ELFUTILS_1.0")                                                                                     \
    X(elf_update, "ELFUTILS_1.0")                                                                                      \
    X(gelf_getshdr, "ELFUTILS_1.0")

/* Functions a feature needs that older releases lack: NULL there, and the feature off.
 * elf_compress (0.165): inflating debug files for the cache (debug_cache.c). */
#define TCN_LIBDW_OPTIONAL(X) X(elf_compress, "ELFUTILS_1.7")

/* __typeof__ takes each prototype from the headers without referring to the symbol. */
struct tcn_libdw {
#define TCN_LIBDW_FIELD(name, version) __typeof__(name) *name;
    TCN_LIBDW_FUNCTIONS(TCN_LIBDW_FIELD)
    TCN_LIBDW_OPTIONAL(TCN_LIBDW_FIELD)
#undef TCN_LIBDW_FIELD
};

/* The table, loaded on the first call (thread-safe, once per process), or NULL when libdw
 * cannot be loaded. Never unloaded. */
const struct tcn_libdw *tcn_libdw(void);

/* Why tcn_libdw returned NULL ("libdw.so.1 not found (install elfutils' libdw1)"), or NULL
 * when it has not been asked for yet or was loaded. Does not load it. */
const char *tcn_libdw_unavailable(void);

/* Reports the modules mapped in this process into dwfl, between dwfl_report_begin and
 * dwfl_report_end: what dwfl_linux_proc_report(dwfl, getpid()) does, without its opening
 * /proc/PID/maps and /proc/PID/auxv at the lowest free numbers each time (one the program
 * may have closed, to dup2 onto it meanwhile). *maps is the caller's /proc/self/maps, opened
 * out of the program's way (util/fd.h) at the first report and read again from its start
 * at each one after (fclose it when done). The vDSO, which the maps name no file for, is
 * found from the auxiliary vector and reported as "[vdso: PID]", as libdwfl does. Returns
 * what dwfl_linux_proc_maps_report does (0, -1 or an errno). */
int tcn_libdw_report_self(Dwfl *dwfl, FILE **maps);

/* libdwfl's callbacks finding a module's file (as dwfl_linux_proc_find_elf) and its
 * separate debug file by build ID (as dwfl_build_id_find_debuginfo), each with a descriptor
 * the Dwfl keeps, out of the program's way (util/fd.h): every file is opened once a process
 * and kept, and each Dwfl made since gets a copy made straight at or above the floor. Only
 * once tcn_libdw() has returned the table. The module's file is read with pread as it is needed, never
 * mapped: libdwfl would map the whole file (rw-p, private), and perf's DWARF unwinder takes
 * the lowest mapping of a file for its load address, so every callstack perf takes of the
 * program would stop at the first frame in that file. A file that carries its own DWARF is
 * mapped from the debug cache's copy of it instead (another file: debug_cache.h), when there
 * is a cache. The vDSO's image is read where it is
 * mapped (elf_memory), with no descriptor (libdwfl would open /proc/PID/mem for it). */
int tcn_libdw_find_elf(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base, char **file_name,
                       Elf **elfp);
/* The same, taking a copy only when one is made already: the sampler's unwinder, which must
 * not stop reading its rings to copy a whole program (the resolver makes the copy). */
int tcn_libdw_find_elf_made(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base, char **file_name,
                            Elf **elfp);
int tcn_libdw_find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
                             const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
                             char **debuginfo_file_name);

/* After fork: the kept files stay (the child's own descriptors), their lock starts anew. */
void tcn_libdw_forget_after_fork(void);

/* Tests: load `soname` instead of libdw.so.1 (a name that does not exist, or a library
 * without libdw's functions). Call before anything asks for the table. */
void tcn_libdw_use_for_tests(const char *soname);

#endif
