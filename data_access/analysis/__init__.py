"""The statistics behind the analysis pages, free of any drawing: means with range-respecting confidence
intervals, paired differences and rank correlations (``stats``). The figures built on them are in
``data_access.figures``."""
