/* sample_lines.c - line numbers from a copy of a code object's location table.
 *
 * CPython 3.11+ describes each run of code units with one entry (Objects/locations.md):
 * a first byte with the top bit set, holding a 4-bit code and the run's length - 1 in
 * code units, then the code's data. Codes 0-9 (short form, one byte follows) and 10-12
 * (one-line form, two bytes follow, line delta code - 10) keep or move the line a little;
 * 13 (a signed varint line delta) and 14 (the same, then end line, start and end column
 * as varints) move it further; 15 says the run has no line. Varints come in 6-bit chunks,
 * low first, bit 6 meaning "more"; a signed varint keeps the sign in its lowest bit.
 * The table is only ever read from the copy, so a malformed one ends the search early.
 */
#include "sample.h"

static int read_varint(const unsigned char *p, size_t len, size_t *i, unsigned *out)
{
    unsigned value = 0;
    for (unsigned shift = 0; *i < len && shift < 32; shift += 6) {
        unsigned b = p[(*i)++];
        value |= (b & 63u) << shift;
        if (!(b & 64)) {
            *out = value;
            return 0;
        }
    }
    return -1;
}

static int read_svarint(const unsigned char *p, size_t len, size_t *i, int *out)
{
    unsigned v;
    if (read_varint(p, len, i, &v) != 0)
        return -1;
    *out = (v & 1) ? -(int)(v >> 1) : (int)(v >> 1);
    return 0;
}

int tp_linetable_line(const unsigned char *table, size_t len, int firstlineno, int offset)
{
    if (offset < 0)
        return firstlineno; /* a frame that has not started yet */
    int line = firstlineno;
    long start = 0; /* byte offset where the current run starts */
    size_t i = 0;
    while (i < len) {
        unsigned first = table[i++];
        if (!(first & 0x80))
            return -1;
        unsigned code = (first >> 3) & 15;
        long end = start + 2 * (long)((first & 7) + 1);
        int delta = 0, has_line = 1;
        unsigned skip;
        switch (code) {
        case 15:
            has_line = 0;
            break;
        case 14:
            if (read_svarint(table, len, &i, &delta) != 0 || read_varint(table, len, &i, &skip) != 0 ||
                read_varint(table, len, &i, &skip) != 0 || read_varint(table, len, &i, &skip) != 0)
                return -1;
            break;
        case 13:
            if (read_svarint(table, len, &i, &delta) != 0)
                return -1;
            break;
        case 10:
        case 11:
        case 12:
            delta = (int)code - 10;
            i += 2;
            break;
        default:
            i += 1;
            break;
        }
        line += delta;
        if (offset < end)
            return has_line ? line : -1;
        start = end;
    }
    return -1;
}
