"""What every corpus's run scoring (``contract.RunScoring``) shares and nothing corpus-specific: reading a run file
line by line with its bookkeeping (``lines``) and the statistics of a metric table (``statistics``). It sits below
the corpus packages, which score their own runs with it; the generic ``runs`` package above them loads, caches and
compares runs through the registry."""
