"""The names: an object's content and family as the hash reads them (content), kustomize's hash
suffix (hashing), the stable-name strategy's content hash (strategy,
annotate), the edits that rename an object (renamed) or give its name back (restore), the retention
annotations and labels gc reads (retention), and ``suffixJobs`` (jobs)."""
