"""Every colour the app draws text in stays readable on every surface of every theme.

Contrast is WCAG's ratio of relative luminances; 3 is its floor for large or bold text
and for the parts of a graphic (the decay plot's curves). Under the cursor counts as a
surface: a row's coloured text stays on it while highlighted.
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
    return out


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
