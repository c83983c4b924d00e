# Imported by import_raises.py from the same folder (pyrt puts a module's
# folder first on sys.path, as `python FILE.py` does); raises on import.
raise ValueError('the neighbour refuses')  # MARK: neighbour-raise
