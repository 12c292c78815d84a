/* record.c - the fixed word count of each record type. */
#include "client/record.h"

const uint8_t tc_rec_words[TC_REC_TYPE_COUNT] = {
    [TC_REC_ZONE_BEGIN] = 2,       [TC_REC_ZONE_BEGIN_ALLOC] = 2, [TC_REC_ZONE_END] = 1,
    [TC_REC_ZONE_TEXT] = 0,        [TC_REC_ZONE_NAME] = 0,        [TC_REC_ZONE_COLOR] = 0,
    [TC_REC_ZONE_VALUE] = 1,       [TC_REC_MESSAGE] = 1,          [TC_REC_MESSAGE_LITERAL] = 2,
    [TC_REC_APP_INFO] = 1,         [TC_REC_PLOT_DOUBLE] = 3,      [TC_REC_PLOT_FLOAT] = 3,
    [TC_REC_PLOT_INT] = 3,         [TC_REC_PLOT_CONFIG] = 1,      [TC_REC_FRAME_MARK] = 2,
    [TC_REC_FRAME_START] = 2,      [TC_REC_FRAME_END] = 2,        [TC_REC_FRAME_IMAGE] = 1,
    [TC_REC_FIBER_ENTER] = 2,      [TC_REC_FIBER_LEAVE] = 1,      [TC_REC_GPU_ZONE_BEGIN] = 3,
    [TC_REC_GPU_ZONE_END] = 2,     [TC_REC_GPU_TIME] = 2,         [TC_REC_GPU_NEW_CONTEXT] = 3,
    [TC_REC_GPU_CONTEXT_NAME] = 0, [TC_REC_GPU_CALIBRATION] = 3,  [TC_REC_GPU_TIME_SYNC] = 2,
    [TC_REC_MEM_ALLOC] = 4,        [TC_REC_MEM_FREE] = 3,         [TC_REC_MEM_DISCARD] = 2,
    [TC_REC_LOCK_ANNOUNCE] = 2,    [TC_REC_LOCK_TERMINATE] = 1,   [TC_REC_LOCK_WAIT] = 2,
    [TC_REC_LOCK_OBTAIN] = 2,      [TC_REC_LOCK_RELEASE] = 2,     [TC_REC_LOCK_MARK] = 2,
    [TC_REC_LOCK_NAME] = 0,        [TC_REC_SECTION_ENTER] = 2,    [TC_REC_SECTION_LEAVE] = 1,
    [TC_REC_SECTION_SETUP] = 0,
};
