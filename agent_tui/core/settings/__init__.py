"""Where files live and what is configured: paths, the config layers, the settings model, project trust (DESIGN §1).

Never imports the store: settings are read before any database is opened.
"""
