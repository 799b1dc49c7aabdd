"""Pictures of the game: an SVG drawing of the table (:func:`table_svg`) for notebooks and web pages."""

from gubs_env.engine import display
from gubs_env.viz.svg import TableView, save_svg, state_svg, table_svg

display.register(display.Pictures(table_svg=table_svg, view=TableView, save_svg=save_svg))

__all__ = ["save_svg", "state_svg", "table_svg"]
