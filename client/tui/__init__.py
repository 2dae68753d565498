"""The Textual table of war-client: its app, panels, drawn cards, the haul's flight, talk
and the words of its rows. Imported only when Textual is installed."""
