"""Every colour the app draws text in stays readable on every surface of every theme.

Contrast is WCAG's ratio of relative luminances; 3 is its floor for large or bold text
and for the parts of a graphic (the decay plot's curves). Under the cursor counts as a
surface: a row's coloured text stays on it while highlighted. Textual's muted and
disabled text (``auto 60%`` / ``auto 38%`` unless a theme names a colour) is drawn as
the surface's contrasting colour laid on it at that alpha: list section headers and
input placeholders use it.
"""

from __future__ import annotations

import pytest
from textual.app import App
from textual.color import Color

from viva_tui import themes

MIN_RATIO = 3.0
SURFACES = (
    "background",
    "surface",
    "panel",
    "block-cursor-background",
    "block-cursor-blurred-background",
)
TEXT_COLOURS = (*themes.SEMANTIC_DEFAULTS, "foreground", "accent", "primary")
ON_SURFACE = ("text-muted", "text-disabled")
"""Colours Textual may resolve against the surface they are drawn on (``auto``)."""
NEVER_UNDER_THE_CURSOR = {
    ("text-disabled", "block-cursor-background"),
    ("text-disabled", "block-cursor-blurred-background"),
}
"""A disabled option (a section header) is never highlighted: the cursor skips it."""
SHIPPED = themes.load_themes([themes.shipped_theme_dir()])


class ThemedApp(App[None]):
    """The app's variable resolution (semantic defaults under the theme's own)."""

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return dict(themes.SEMANTIC_DEFAULTS)


def luminance(colour: Color) -> float:
    def channel(value: int) -> float:
        c = value / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    return 0.2126 * channel(colour.r) + 0.7152 * channel(colour.g) + 0.0722 * channel(colour.b)


def contrast(a: Color, b: Color) -> float:
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def resolved(name: str) -> dict[str, Color]:
    """The theme's variables as the app sees them, translucent ones laid on the surface."""
    app = ThemedApp()
    for theme in SHIPPED.themes:
        app.register_theme(theme)
    app.theme = name
    variables = app.get_css_variables()
    base = Color.parse(variables["surface"])
    out: dict[str, Color] = {}
    for key in (*SURFACES, *TEXT_COLOURS):
        colour = Color.parse(variables[key])
        out[key] = base.blend(colour.with_alpha(1.0), colour.a) if colour.a < 1 else colour
    for surface in SURFACES:
        for key in ON_SURFACE:
            out[f"{key} on {surface}"] = on_surface(variables[key], out[surface])
    return out


def on_surface(value: str, surface: Color) -> Color:
    """``value`` as drawn on ``surface``: ``auto N%`` is the surface's contrasting text
    colour at N% alpha; any other colour is laid on the surface at its own alpha."""
    words = value.split()
    if words[0] == "auto":
        alpha = float(words[1].rstrip("%")) / 100 if len(words) > 1 else 1.0
        colour = surface.get_contrast_text(alpha)
    else:
        colour = Color.parse(value)
    return surface.blend(colour.with_alpha(1.0), colour.a)


def test_the_three_themes_are_shipped() -> None:
    assert not SHIPPED.errors
    assert {t.name for t in SHIPPED.themes} == {"viva-dark", "viva-light", "viva-high-contrast"}


def test_the_ratio_is_wcags() -> None:
    assert contrast(Color(0, 0, 0), Color(255, 255, 255)) == pytest.approx(21.0)
    assert contrast(Color(95, 168, 211), Color(95, 168, 211)) == pytest.approx(1.0)


@pytest.mark.parametrize("theme", sorted(t.name for t in SHIPPED.themes))
def test_every_text_colour_contrasts_with_every_surface(theme: str) -> None:
    colours = resolved(theme)
    failing = [
        f"{text} on {surface}: {contrast(colours[text], colours[surface]):.2f}"
        for text in TEXT_COLOURS
        for surface in SURFACES
        if contrast(colours[text], colours[surface]) < MIN_RATIO
    ]
    assert not failing, f"{theme}: " + "; ".join(failing)


def test_auto_text_is_resolved_against_its_surface() -> None:
    black, white = Color(0, 0, 0), Color(255, 255, 255)
    assert on_surface("auto 50%", white).r in (127, 128)  # black text, half on white
    assert on_surface("auto", black) == white
    assert on_surface("#000000", white) == black


@pytest.mark.parametrize("theme", sorted(t.name for t in SHIPPED.themes))
def test_muted_and_disabled_text_is_readable_on_every_surface(theme: str) -> None:
    """Section headers of the lists (Timeline's days, Principles' weeks, Knowledge's
    kinds) and the filters' placeholders are drawn in these."""
    colours = resolved(theme)
    failing = [
        f"{text} on {surface}: {ratio:.2f}"
        for text in ON_SURFACE
        for surface in SURFACES
        if (text, surface) not in NEVER_UNDER_THE_CURSOR
        and (ratio := contrast(colours[f"{text} on {surface}"], colours[surface])) < MIN_RATIO
    ]
    assert not failing, f"{theme}: " + "; ".join(failing)
