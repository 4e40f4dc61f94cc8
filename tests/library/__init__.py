"""The numpy and scipy functions compiled code takes: values against numpy's and scipy's,
gradients against central differences and the eager tape."""
