"""What zone(...) does to a function: a zone per call, or per resume for generators and
coroutines (a zone cannot stay open while other code runs on the thread)."""
import functools
import inspect


def wrap(z, fn):
    if inspect.isasyncgenfunction(fn):
        raise TypeError(f"tracer.zone cannot decorate an async generator function ({fn.__qualname__})")
    if inspect.iscoroutinefunction(fn):
        @functools.wraps(fn)
        async def coroutine_wrapper(*args, **kwargs):
            return await _Resumes(z, fn(*args, **kwargs))
        return coroutine_wrapper
    if inspect.isgeneratorfunction(fn):
        @functools.wraps(fn)
        def generator_wrapper(*args, **kwargs):
            return (yield from _resumes(z, fn(*args, **kwargs)))
        return generator_wrapper

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        with z:
            return fn(*args, **kwargs)
    return wrapper


def _resumes(z, it):
    """Drives generator or coroutine it, each resume inside zone z; passes values,
    exceptions and close() through as `yield from` would."""
    value, error = None, None
    while True:
        with z:
            try:
                item = it.send(value) if error is None else it.throw(error)
            except StopIteration as stop:
                return stop.value
        value, error = None, None
        try:
            value = yield item
        except GeneratorExit:
            it.close()
            raise
        except BaseException as exc:
            error = exc


class _Resumes:
    def __init__(self, z, coroutine):
        self._z, self._coroutine = z, coroutine

    def __await__(self):
        return _resumes(self._z, self._coroutine)
