"""Pictures: board diagrams (SVG, PNG), HTML match reports and the operator's dashboard.

The modules: diagram (SVG), png, readback (SVG -> position), match_report (HTML),
dashboard (the status port's page), cli (fibsbot diagram). Nothing is imported here, so
that the command line loads only what a command needs.
"""
