"""A Game Of Sorts (Willemsen et al., LREC 2022): the corpus package (``data``, the corpus contract) and its views (``views``)."""
