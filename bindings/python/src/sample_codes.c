/* sample_codes.c - copies of the code objects met in samples, made and found by the
 * signal handler without locks or allocation.
 *
 * Copies are carved out of one reserved mapping by an atomic bump, published in an
 * open-addressing table by compare-and-swap, and never freed: a sample waiting in a ring
 * and a frame the server asks about later still name them. A code object is found by its
 * address and its fields (names, line table, first line, size) are compared with the
 * copy's, so a code object that took the place of a dead one gets its own copy. Every
 * object is checked readable before it is read (tp_readable): the handler may have been
 * handed a pointer that is not what it should be.
 */
#include "sample.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define ARENA_SIZE ((size_t)256 << 20) /* reserved address space; pages are used on demand */
#define TABLE_BITS 17
#define TABLE_SIZE ((size_t)1 << TABLE_BITS)
#define MAX_PROBES 32
#define MAX_NAME_CHARS 1024
#define MAX_FILE_CHARS 4096
#define MAX_LINETABLE ((size_t)1 << 20)

static unsigned char *arena;
static _Atomic size_t arena_used = 8; /* offset 0 is no copy */
static _Atomic(struct tp_code_copy *) table[TABLE_SIZE];
static _Atomic uint64_t refused;

int tp_codes_init(void)
{
    if (arena)
        return 0;
    void *p = mmap(NULL, ARENA_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED)
        return -1;
    arena = p;
    return 0;
}

static int probe(uintptr_t word)
{
    /* rt_sigprocmask copies the new mask from user memory before it looks at `how`: an
     * invalid `how` makes it a pure read of 8 bytes that fails with EFAULT when they are
     * not mapped (EINVAL otherwise), changing nothing. */
    return !(syscall(SYS_rt_sigprocmask, ~0, (void *)word, NULL, (size_t)8) == -1 && errno == EFAULT);
}

int tp_readable(const void *p, size_t n)
{
    uintptr_t first = (uintptr_t)p & ~(uintptr_t)7, last = ((uintptr_t)p + n - 1) & ~(uintptr_t)7;
    /* The lowest 64 KiB are never mapped (vm.mmap_min_addr), and a null mask pointer would
     * make the probe a successful no-op. */
    if (first < 65536 || n == 0 || last < first)
        return 0;
    for (uintptr_t page = first & ~(uintptr_t)4095;; page += 4096) { /* one word of every page */
        if (!probe(page < first ? first : page))
            return 0;
        if (page >= (last & ~(uintptr_t)4095))
            return 1;
    }
}

uint32_t tp_codes_ref(const struct tp_code_copy *copy)
{
    return copy ? (uint32_t)(((const unsigned char *)copy - arena) / 8) : 0;
}

const struct tp_code_copy *tp_codes_at(uint32_t ref)
{
    size_t offset = (size_t)ref * 8;
    if (!arena || ref == 0 || offset >= atomic_load_explicit(&arena_used, memory_order_acquire))
        return NULL;
    return (const struct tp_code_copy *)(arena + offset);
}

uint64_t tp_codes_refused(void)
{
    return atomic_load(&refused);
}

static void *arena_alloc(size_t n)
{
    n = (n + 7) & ~(size_t)7;
    size_t at = atomic_fetch_add_explicit(&arena_used, n, memory_order_relaxed);
    if (at + n > ARENA_SIZE || at + n < at) {
        atomic_fetch_sub_explicit(&arena_used, n, memory_order_relaxed);
        return NULL;
    }
    return arena + at;
}

/* A str's characters: kind (bytes per character), count and where they are; 0 when the
 * object is not a readable compact str. */
static int str_chars(const PyObject *s, size_t max, unsigned *kind, size_t *len, const void **data)
{
    if (!tp_readable(s, sizeof(PyASCIIObject)) || Py_TYPE(s) != &PyUnicode_Type || !PyUnicode_IS_COMPACT(s) ||
        (!PyUnicode_IS_ASCII(s) && !tp_readable(s, sizeof(PyCompactUnicodeObject))))
        return 0;
    *kind = PyUnicode_KIND(s);
    *len = (size_t)PyUnicode_GET_LENGTH(s);
    if (*len > max)
        *len = max;
    *data = PyUnicode_IS_ASCII(s) ? (const void *)((const PyASCIIObject *)s + 1)
                                  : (const void *)((const PyCompactUnicodeObject *)s + 1);
    return (*kind == 1 || *kind == 2 || *kind == 4) && tp_readable(*data, *len * *kind + 1);
}

static const struct tp_code_copy *make_copy(const PyCodeObject *co)
{
    unsigned qkind, fkind;
    size_t qlen, flen, llen = 0;
    const void *qdata, *fdata;
    const unsigned char *ldata = NULL;
    if (!str_chars(co->co_qualname, MAX_NAME_CHARS, &qkind, &qlen, &qdata) ||
        !str_chars(co->co_filename, MAX_FILE_CHARS, &fkind, &flen, &fdata))
        return NULL;
    const PyObject *lt = co->co_linetable;
    if (tp_readable(lt, sizeof(PyBytesObject)) && Py_TYPE(lt) == &PyBytes_Type &&
        (size_t)Py_SIZE(lt) <= MAX_LINETABLE && tp_readable(((const PyBytesObject *)lt)->ob_sval, Py_SIZE(lt) + 1)) {
        llen = (size_t)Py_SIZE(lt);
        ldata = (const unsigned char *)((const PyBytesObject *)lt)->ob_sval;
    }
    struct tp_code_copy *c = arena_alloc(sizeof *c + qlen * qkind + flen * fkind + llen);
    if (!c) {
        atomic_fetch_add_explicit(&refused, 1, memory_order_relaxed);
        return NULL;
    }
    c->code = co;
    c->qualname = co->co_qualname;
    c->filename = co->co_filename;
    c->linetable = co->co_linetable;
    c->firstlineno = co->co_firstlineno;
    c->ncodeunits = (int32_t)Py_SIZE(co);
    c->qualname_len = (uint32_t)qlen;
    c->filename_len = (uint32_t)flen;
    c->linetable_len = (uint32_t)llen;
    c->qualname_kind = (uint8_t)qkind;
    c->filename_kind = (uint8_t)fkind;
    atomic_init(&c->function, 0);
    memcpy(c->data, qdata, qlen * qkind);
    memcpy(c->data + qlen * qkind, fdata, flen * fkind);
    if (llen)
        memcpy(c->data + qlen * qkind + flen * fkind, ldata, llen);
    return c;
}

static int same_code(const struct tp_code_copy *c, const PyCodeObject *co)
{
    return c->code == co && c->qualname == co->co_qualname && c->filename == co->co_filename &&
           c->linetable == co->co_linetable && c->firstlineno == co->co_firstlineno &&
           c->ncodeunits == (int32_t)Py_SIZE(co);
}

const struct tp_code_copy *tp_codes_find(const PyCodeObject *co)
{
    if (!arena)
        return NULL;
    uintptr_t h = ((uintptr_t)co >> 4) * 0x9E3779B97F4A7C15ull;
    size_t home = (size_t)(h >> (64 - TABLE_BITS));
    struct tp_code_copy *fresh = NULL;
    for (size_t n = 0; n < MAX_PROBES; n++) {
        _Atomic(struct tp_code_copy *) *slot = &table[(home + n) & (TABLE_SIZE - 1)];
        struct tp_code_copy *c = atomic_load_explicit(slot, memory_order_acquire);
        if (c && c->code != co)
            continue;
        if (c && same_code(c, co))
            return c;
        /* a free slot, or a dead code object's copy at this address: put ours there */
        if (!fresh && !(fresh = (struct tp_code_copy *)make_copy(co)))
            return NULL;
        if (atomic_compare_exchange_strong_explicit(slot, &c, fresh, memory_order_release, memory_order_acquire))
            return fresh;
        if (c && same_code(c, co)) /* another thread put the same copy there first */
            return c;
        n--; /* look at the slot again */
    }
    /* the neighbourhood is full of other code objects: take the home slot */
    if (!fresh && !(fresh = (struct tp_code_copy *)make_copy(co)))
        return NULL;
    atomic_store_explicit(&table[home], fresh, memory_order_release);
    return fresh;
}
