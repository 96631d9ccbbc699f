import Cyanotype
