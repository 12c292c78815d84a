"""Changing a module the program uses when the program imports it, not before: tracer's
start-up imports none of threading, signal or multiprocessing itself (together ~5 ms of
every start), yet patches them (naming threads and processes, keeping the sampler's
signal handler) in the programs that use them."""
import sys


def when_imported(name, patch):
    """patch(module) once module `name` has been imported: now, if it has been already."""
    module = sys.modules.get(name)
    if module is not None:
        patch(module)
        return
    finder = next((f for f in sys.meta_path if isinstance(f, _PatchOnImport)), None)
    if finder is None:
        finder = _PatchOnImport()
        sys.meta_path.insert(0, finder)
    finder.patches.setdefault(name, []).append(patch)


class _PatchOnImport:
    """A meta path finder that finds nothing itself: when a module it waits for is imported,
    it has the other finders find it and patches the module once it has run."""

    def __init__(self):
        self.patches = {}

    def find_spec(self, fullname, path, target=None):
        if fullname not in self.patches:
            return None
        for finder in sys.meta_path:
            spec = None if finder is self else getattr(finder, "find_spec", lambda *a: None)(fullname, path, target)
            if spec is not None and spec.loader is not None and hasattr(spec.loader, "exec_module"):
                spec.loader = _PatchingLoader(spec.loader, self)
                return spec
        return None

    def loaded(self, module):
        for patch in self.patches.pop(module.__spec__.name, ()):
            patch(module)
        if not self.patches and self in sys.meta_path:
            sys.meta_path.remove(self)


class _PatchingLoader:
    """The loader found for a module to patch, wrapped: that loader may serve other modules
    too (a zip's importer, a frozen application's), so it is left as it is."""

    def __init__(self, loader, finder):
        self._loader = loader
        self._finder = finder

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module):
        self._loader.exec_module(module)
        self._finder.loaded(module)

    def __getattr__(self, name):
        return getattr(self._loader, name)
