/* game_loop.c - a frame loop with nested zones, plots, messages and zone text.
 * Deterministic: 60 frames, each with one update, one physics step per 2 frames, one
 * render; the sleeps give the zones known minimum durations.
 *
 *   TRACYC_OUTPUT=summary.txt ./example_game_loop   (in-process capture)
 *   ./example_game_loop & tracyc-capture -o trace.json
 */
#define _POSIX_C_SOURCE 200809L
#include <tracy/TracyC.h>

#include <stdio.h>
#include <time.h>

static void sleep_us(long us)
{
    struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
    nanosleep(&ts, NULL);
}

static void physics(int frame)
{
    TracyCZoneNC(zone, "physics", 0x3080ff, 1);
    TracyCZoneValue(zone, (uint64_t)frame);
    sleep_us(300);
    TracyCZoneEnd(zone);
}

static void update(int frame)
{
    TracyCZoneN(zone, "update", 1);
    if (frame % 2 == 0)
        physics(frame);
    sleep_us(200);
    TracyCZoneEnd(zone);
}

static void render(int frame)
{
    TracyCZoneN(zone, "render", 1);
    TracyCZoneTextF(zone, "frame %d", frame);
    sleep_us(500);
    TracyCPlot("triangles", 1000.0 + frame * 10);
    TracyCZoneEnd(zone);
}

int main(void)
{
    TracyCSetThreadName("game main");
    TracyCAppInfo("game_loop example", 17);
    TracyCPlotConfig("triangles", TracyPlotFormatNumber, 0, 1, 0xff8800);
    TracyCMessageL("starting");
    for (int frame = 0; frame < 60; frame++) {
        update(frame);
        render(frame);
        if (frame % 20 == 0)
            TracyCMessageC("checkpoint", 10, 0x00ff00);
        TracyCFrameMark;
    }
    TracyCMessageL("done");
    printf("game_loop: 60 frames\n");
    return 0;
}
