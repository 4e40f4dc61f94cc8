"""Load generated Python source as a real module file (the compiler reads source files)."""

import importlib.util
import itertools

_ids = itertools.count()


def load_function(source: str, folder, name: str = "f"):
    """Write `source` to a new file in `folder`, import it, return its function `name`."""
    path = folder / f"generated_program_{next(_ids)}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, name)
