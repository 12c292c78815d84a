/* module.c - tracer._tracer: the C half of the tracer package. */
#include "tracer.h"

#include <stdlib.h>

PyObject *tp_module;

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    .m_name = "tracer._tracer",
    .m_doc = "Tracy profiling for Python, in C: automatic call tracing, zones, messages, plots.",
    .m_size = -1,
    .m_methods = tp_api_methods,
};

PyMODINIT_FUNC PyInit__tracer(void)
{
    if (tp_module)
        return Py_NewRef(tp_module); /* one profiler per process, whatever imports it */
    PyObject *m = PyModule_Create(&module_def);
    if (!m)
        return NULL;
    const char *budget = getenv("TRACER_SRCLOC_BUDGET");
    if (budget && atol(budget) > 0)
        tp_srcloc_budget = atol(budget) < 32000 ? (size_t)atol(budget) : 32000;
    if (tp_codeinfo_init() != 0 || tp_codeinfo_watch_generated() != 0 || tp_hook_init(m) != 0 ||
        tp_zone_type_init(m) != 0 || PyModule_AddFunctions(m, tp_sample_methods) != 0 || tp_sample_init() != 0) {
        Py_DECREF(m);
        return NULL;
    }
    tp_module = Py_NewRef(m);
    return m;
}
