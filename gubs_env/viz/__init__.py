"""Pictures of the game: an SVG drawing of the table (:func:`table_svg`) for notebooks and web pages."""

from gubs_env.viz.svg import save_svg, state_svg, table_svg

__all__ = ["save_svg", "state_svg", "table_svg"]
