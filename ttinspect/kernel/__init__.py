"""What a kernel reference is made of, as pure data: argument types, the shipped variants, a launch's specialization."""
