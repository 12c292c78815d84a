/* test_descriptors.c - see test_descriptors.h. */
#include "test_descriptors.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int tt_descriptors_on(const char *target)
{
    int n = 0;
    DIR *d = opendir("/proc/self/fd");
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) {
        char path[PATH_MAX], link[PATH_MAX];
        snprintf(path, sizeof path, "/proc/self/fd/%s", e->d_name);
        ssize_t len = readlink(path, link, sizeof link - 1);
        if (len > 0) {
            link[len] = '\0';
            n += strcmp(link, target) == 0;
        }
    }
    if (d)
        closedir(d);
    return n;
}
