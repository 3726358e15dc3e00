"""What names what: the reference table (table, monitoring, fieldspec, user_specs), the renamed kinds
(kinds, controllers), the walk that finds names in an object (walk), and matching a name to an object
of the input (lookup, namespaces); reference-shaped fields the table misses (unplaced), and objects
a program reads by a fixed name (known). Read by the rename, gc and ``krmfn plan`` alike."""
