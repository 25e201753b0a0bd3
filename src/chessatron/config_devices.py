"""Checking a device URL of the machine config (``[grbl] url``, ``[sensors] url``...) with the parsing its
backend uses when it opens the device, without opening it: what :meth:`chessatron.config.Config.from_dict`
asks of every ``url``, and the manual's examples are checked with."""

from __future__ import annotations

from .planning.layout import Layout
from .ports import DeviceUrl

__all__ = ["DEVICE_KINDS", "check_device_url"]

#: The kinds of device the config names by URL, a section each.
DEVICE_KINDS = ("grbl", "magnet", "sensors", "leds", "display", "buzzer", "speech", "microphone", "buttons")


def check_device_url(kind: str, url: str, layout: Layout) -> None:
    """Check the URL of a device of ``kind`` (grbl, magnet, sensors, leds, display, buzzer, buttons, speech,
    microphone) with the parsing its backend uses when it opens the device, without opening anything or
    importing a vendor library: unknown options, values out of range, files it names (a pin map, an LED
    mapping, a press script).

    Raises :class:`ConfigError` (or one of its kinds) naming what is wrong.
    """
    if kind == "grbl":
        _check_grbl_url(url)
    elif kind == "magnet":
        from .gantry.magnet import check_magnet_url

        check_magnet_url(url)
    elif kind == "sensors":
        from .sensors import check_sensor_url

        check_sensor_url(url, layout)
    elif kind == "leds":
        from .feedback.leds import check_leds_url

        check_leds_url(url, layout)
    elif kind == "display":
        from .feedback.display import check_display_url

        check_display_url(url)
    elif kind == "buzzer":
        from .feedback.buzzer import check_buzzer_url

        check_buzzer_url(url)
    elif kind == "speech":
        from .feedback.speaker import check_speaker_url

        check_speaker_url(url)
    elif kind == "microphone":
        from .voice.microphone import check_microphone_url

        check_microphone_url(url)
    elif kind == "buttons":
        from .buttons import check_buttons_url

        check_buttons_url(url)
    else:
        raise ValueError(f"no device kind {kind!r}; use one of {', '.join(DEVICE_KINDS)}")


def _check_grbl_url(url: str) -> None:
    parsed = DeviceUrl.parse(url)
    if parsed.scheme == "sim":
        from .sim.grbl import sim_grbl_options

        sim_grbl_options(url)
    elif parsed.scheme == "none":
        parsed.check_options(())
    else:
        from .serialurl import check_serial_url

        check_serial_url(url)
