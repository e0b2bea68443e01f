"""The commented default configs, shipped inside the wheel as the package data ``bot.defaults``
(read with importlib.resources; ``fibsbot init`` copies them out for editing)."""
