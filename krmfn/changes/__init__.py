"""krmfn plan OLD NEW: two renders compared, versions paired by family, what each change rolls."""
