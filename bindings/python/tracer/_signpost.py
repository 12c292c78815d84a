"""signpost: a marker in the timeline that tt-metal's report tooling recognises."""
from tracer import _tracer

# tt-metal's tracy_message default colour, which its signposts use.
SIGNPOST_COLOR = 0xF0F8FF


def signpost(header, message=None):
    """Marks a point of the run, in tt-metal's exact format: a Tracy message
    "`TT_SIGNPOST: {header}\\n{message}`" (backticks included) in colour 0xF0F8FF,
    without the "\\n{message}" part when message is None or empty, as tt-metal does."""
    if not isinstance(header, str):
        raise TypeError(f"signpost header must be a str, not {type(header).__name__}")
    if message is not None and not isinstance(message, str):
        raise TypeError(f"signpost message must be a str or None, not {type(message).__name__}")
    text = f"`TT_SIGNPOST: {header}\n{message}`" if message else f"`TT_SIGNPOST: {header}`"
    _tracer.message(text, SIGNPOST_COLOR)
