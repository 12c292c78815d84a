/* first_walk_lib.c - a library whose constructor calls back into test_callstack_first_walk
 * (which exports the function): the callback runs inside dlopen, with the loader's lock held. */
void test_first_walk_in_constructor(void);

__attribute__((constructor)) static void first_walk_lib_init(void)
{
    test_first_walk_in_constructor();
}
