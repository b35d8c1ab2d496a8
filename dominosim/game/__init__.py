"""The game: tiles, actions, rules as data and the twelve variants, the table's layout, the
addressed random numbers, what a seat may know (``observe``), in-play points, and the plain,
readable reference engine that plays one game at a time (docs/design.md, "Layout of the
package"). It imports only ``dominosim.base``."""
